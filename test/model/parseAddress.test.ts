// parseAddress and checkAddress (its allocation-free check, which every
// decoded worker goes through) against the parser they replaced, kept here
// as the reference: the same parts for every address it accepts, the same
// TypeError for every one it refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAddress, UNIX_ADDRESS } from '../../src/model/checkAddress.js';
import { describeValue } from '../../src/model/describeValue.js';
import { parseAddress } from '../../src/model/parseAddress.js';
import type { WorkerAddress } from '../../src/model/types.js';

function reference(address: string): WorkerAddress {
  if (typeof address !== 'string') {
    throw new TypeError(`Invalid worker address: ${describeValue(address)} (expected a string)`);
  }
  if (address.startsWith('unix:')) {
    const path = address.slice(5);
    if (path.length === 0 || path.includes('\0')) {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (unix address without a path)`);
    }
    return { kind: 'unix', path };
  }
  let host: string;
  let portText: string;
  let ipv6 = false;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0 || address[close + 1] !== ':') {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (expected [v6]:port)`);
    }
    host = address.slice(1, close);
    portText = address.slice(close + 2);
    ipv6 = true;
    if (!host.includes(':')) {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (brackets need an IPv6 address)`);
    }
  } else {
    const colon = address.lastIndexOf(':');
    if (colon < 0) {
      throw new TypeError(`Invalid worker address: ${describeValue(address)} (no port; expected host:port)`);
    }
    host = address.slice(0, colon);
    portText = address.slice(colon + 1);
    if (host.includes(':')) {
      throw new TypeError(
        `Invalid worker address: ${describeValue(address)} (an IPv6 host must be bracketed: [v6]:port)`,
      );
    }
  }
  if (host.length === 0 || /[\s/\0]/.test(host)) {
    throw new TypeError(`Invalid worker address: ${describeValue(address)} (bad or missing host)`);
  }
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) {
    throw new TypeError(`Invalid worker address: ${describeValue(address)} (port must be 1-65535)`);
  }
  return { kind: 'tcp', host, port, ipv6 };
}

function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof TypeError ? `TypeError: ${error.message}` : String(error) };
  }
}

/** Hosts, ports and separators that reach every branch, in every combination. */
function corpus(): string[] {
  const hosts = [
    '',
    'h',
    'localhost',
    '10.0.0.1',
    'a b',
    'a/b',
    'a\0b',
    'x\u00a0',
    '\u2028y',
    'é.example',
    '::1',
    'fe80::1%eth0',
    ':',
    'a:b',
  ];
  const ports = [
    '',
    '0',
    '1',
    '80',
    '00080',
    '65535',
    '65536',
    '99999',
    '123456',
    '+1',
    '1e3',
    ' 80',
    '80 ',
    '8/0',
    '٣',
  ];
  const out: string[] = [];
  for (const host of hosts) {
    for (const port of ports) {
      out.push(`${host}:${port}`, `[${host}]:${port}`, `[${host}]${port}`, `${host}${port}`, `[${host}:${port}`);
    }
  }
  out.push(
    'unix:',
    'unix:/tmp/w.sock',
    'unix:a\0',
    'unix:\0',
    'unix',
    'UNIX:/x',
    '[',
    ']',
    '[]',
    '[]:1',
    ':80',
    '::',
    '',
    ' ',
    '[::1]:80:90',
    '[::1]]:80',
  );
  return out;
}

describe('parseAddress', () => {
  it('parses and refuses exactly as the parser it replaced', () => {
    const addresses = corpus();
    let accepted = 0;
    for (const address of addresses) {
      const expected = outcome(() => reference(address));
      assert.deepEqual(
        outcome(() => parseAddress(address)),
        expected,
        JSON.stringify(address),
      );
      const checked = outcome(() => checkAddress(address));
      if ('error' in (expected as object)) assert.deepEqual(checked, expected, JSON.stringify(address));
      else accepted += 1;
    }
    assert.ok(accepted >= 30 && accepted < addresses.length - 400, `${accepted} of ${addresses.length} accepted`);
  });

  it('refuses what is not a string, naming it', () => {
    for (const value of [undefined, null, 80, { host: 'h' }]) {
      assert.throws(
        () => parseAddress(value as unknown as string),
        (error: unknown) =>
          error instanceof TypeError && /^Invalid worker address: .* \(expected a string\)$/.test(error.message),
      );
    }
  });
});

describe('checkAddress', () => {
  it("returns the port's colon, or UNIX_ADDRESS", () => {
    assert.equal(checkAddress('h:80'), 1);
    assert.equal(checkAddress('[::1]:9000'), 5);
    assert.equal(checkAddress('ab:8'), 2);
    assert.equal(checkAddress('unix:/tmp/w.sock'), UNIX_ADDRESS);
  });
});
