import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatEventJson } from '../../src/cli/formatEventJson.js';
import { formatEventText } from '../../src/cli/formatEventText.js';
import { renderUsage } from '../../src/cli/renderUsage.js';
import { commands } from '../../src/cli/commands.js';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';

const plain = workerInfo({
  uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11',
  address: '127.0.0.1:50051',
  pid: 4242,
  version: '0.13.1',
});
const rich = workerInfo({
  uid: '00000000-0000-4000-8000-000000000001',
  address: '10.0.0.5:7000',
  pid: 1,
  version: '1.0.0',
  tags: ['gpu', 'cpu'],
  extra: { zone: 'eu-1', rack: '7' },
  secure: true,
  options: { compression: 'gzip', maxConcurrentStreams: 7 },
});
const at = new Date(2026, 11, 2, 9, 3, 4, 5);

describe('formatEventJson', () => {
  it("writes exactly the documented shape, fields in a fixed order, without wool's default channel options", () => {
    assert.equal(
      formatEventJson(discoveryEvent('worker-added', plain)),
      '{"type":"worker-added","worker":{"uid":"6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11","address":"127.0.0.1:50051",' +
        '"pid":4242,"version":"0.13.1","tags":[],"extra":{},"secure":false}}',
    );
  });

  it("a drop's reason, when known, follows the worker; no key at all otherwise", () => {
    assert.match(
      formatEventJson(discoveryEvent('worker-dropped', plain, 'process-gone')),
      /^\{"type":"worker-dropped","worker":\{.*"secure":false\},"reason":"process-gone"\}$/,
    );
    assert.doesNotMatch(formatEventJson(discoveryEvent('worker-dropped', plain)), /reason/);
    assert.match(formatEventText(discoveryEvent('worker-dropped', plain, 'expired'), at), / \(expired\)$/);
    assert.doesNotMatch(formatEventText(discoveryEvent('worker-dropped', plain), at), /\(/);
  });

  it('keeps only the channel options that differ from the defaults; full keeps them all', () => {
    assert.deepEqual(
      (JSON.parse(formatEventJson(discoveryEvent('worker-added', rich))) as { worker: { options: unknown } }).worker
        .options,
      {
        maxConcurrentStreams: 7,
        compression: 'gzip',
      },
    );
    assert.equal(
      formatEventJson(discoveryEvent('worker-added', plain), true),
      '{"type":"worker-added","worker":{"uid":"6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11","address":"127.0.0.1:50051",' +
        '"pid":4242,"version":"0.13.1","tags":[],"extra":{},"secure":false,"options":{' +
        '"maxReceiveMessageLength":104857600,"maxSendMessageLength":104857600,"keepaliveTimeMs":30000,' +
        '"keepaliveTimeoutMs":30000,"keepalivePermitWithoutCalls":true,"maxPingsWithoutData":2,' +
        '"maxConcurrentStreams":100,"compression":"none"}}}',
    );
  });

  it('round-trips every field through JSON.parse, on one line', () => {
    for (const type of ['worker-added', 'worker-updated', 'worker-dropped'] as const) {
      const line = formatEventJson(discoveryEvent(type, rich), true);
      assert.ok(!line.includes('\n'));
      assert.deepEqual(JSON.parse(line), { type, worker: JSON.parse(JSON.stringify(rich)) as unknown });
    }
  });

  it('keeps the field order whatever order the backend built the worker in', () => {
    const shuffled = { ...rich, options: { ...rich.options } } as WorkerInfo;
    const reordered = Object.fromEntries(Object.entries(shuffled).reverse()) as unknown as WorkerInfo;
    assert.equal(
      formatEventJson(discoveryEvent('worker-added', reordered)),
      formatEventJson(discoveryEvent('worker-added', rich)),
    );
  });

  it('escapes strings a record may carry: newlines, quotes, line separators', () => {
    const odd = workerInfo({ ...plain, version: 'a\n"b"\u2028', extra: { 'k\n': 'v\t' } });
    const line = formatEventJson(discoveryEvent('worker-updated', odd));
    assert.ok(!line.includes('\n'));
    const parsed = JSON.parse(line) as { worker: WorkerInfo };
    assert.equal(parsed.worker.version, 'a\n"b"\u2028');
    assert.deepEqual(parsed.worker.extra, { 'k\n': 'v\t' });
  });
});

describe('formatEventText', () => {
  it('writes aligned columns: time, marker, short uid, address, pid, version, tags, extra', () => {
    assert.equal(
      formatEventText(discoveryEvent('worker-added', plain), at),
      '09:03:04.005 + 6f1d2b1c 127.0.0.1:50051             4242 0.13.1     -            -',
    );
    assert.equal(
      formatEventText(discoveryEvent('worker-dropped', rich), at),
      '09:03:04.005 - 00000000 10.0.0.5:7000                  1 1.0.0      cpu,gpu      rack=7,zone=eu-1 ' +
        'secure maxConcurrentStreams=7 compression=gzip',
    );
    assert.match(formatEventText(discoveryEvent('worker-updated', plain), at), /^09:03:04\.005 ~ 6f1d2b1c /);
  });

  it('aligns the columns of different workers', () => {
    const a = formatEventText(discoveryEvent('worker-added', plain), at);
    const b = formatEventText(discoveryEvent('worker-added', { ...plain, address: '[::1]:1', pid: 1 }), at);
    assert.equal(a.indexOf(' 0.13.1 '), b.indexOf(' 0.13.1 '));
  });

  it('quotes separators and escapes control characters, C1 included', () => {
    const hostile = workerInfo({
      ...plain,
      version: '1 \u001b[31mred',
      tags: ['a,b', 'plain'],
      extra: { 'k=': 'v w', csi: '\u009b2J' },
    });
    const line = formatEventText(discoveryEvent('worker-added', hostile), at);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f]/);
    assert.ok(line.includes('"1 \\u001b[31mred"'));
    assert.ok(line.includes('"a,b",plain'));
    assert.ok(line.includes('csi="\\u009b2J","k="="v w"'));
  });

  it('shows an empty version as ""', () => {
    const line = formatEventText(discoveryEvent('worker-added', workerInfo({ ...plain, version: '' })), at);
    assert.ok(line.includes(' 4242 ""'));
  });
});

describe('renderUsage', () => {
  it('lists every command and the version flag in the overview', () => {
    const text = renderUsage();
    assert.match(text, /^Usage: woolrx <command>/);
    for (const name of Object.keys(commands)) assert.match(text, new RegExp(`^  ${name} `, 'm'));
    assert.match(text, /--version/);
    assert.match(text, /local/);
  });

  it("lists a command's own, common and backend flags", () => {
    const text = renderUsage(commands['publish']);
    assert.match(text, /^Usage: woolrx publish --namespace NS --address HOST:PORT/);
    for (const flag of [
      '--address ADDR',
      '--uid UUID',
      '--pid N',
      '--version V',
      '--tag TAG',
      '--extra K=V',
      '--secure',
      '--namespace NS',
      '--backend NAME',
      '--help',
      '--capacity N',
    ]) {
      assert.ok(text.includes(flag), flag);
    }
    assert.match(renderUsage(commands['watch']), /--json/);
    assert.ok(text.endsWith('\n'));
  });

  it("shows the chosen backend's options (local by default), names the others, hides internal and other commands' flags", () => {
    const watch = renderUsage(commands['watch']);
    assert.ok(watch.includes('Options of --backend local:'), watch);
    for (const hidden of ['--endpoints', '--ttl', '--advertise-host', '--expire-after', 'Options of --backend etcd']) {
      assert.ok(!watch.includes(hidden), `${hidden} not in watch --help`);
    }
    assert.match(watch, /^Backends lan, etcd have their own options: woolrx watch --backend etcd --help$/m);
    const watchEtcd = renderUsage(commands['watch'], undefined, ['etcd']);
    assert.ok(watchEtcd.includes('Options of --backend etcd:') && watchEtcd.includes('--endpoints URL'), watchEtcd);
    assert.ok(
      !watchEtcd.includes('--ttl') && !watchEtcd.includes('--capacity'),
      'publish-only --ttl, and no local options',
    );
    assert.match(watchEtcd, /^Backends local, lan have their own options: /m);
    assert.match(renderUsage(commands['publish'], undefined, ['etcd']), /--ttl SECONDS/);
    assert.match(renderUsage(commands['publish'], undefined, ['lan']), /--advertise-host HOST/);
    const demo = renderUsage(commands['demo']);
    assert.ok(!demo.includes('--as-worker'), 'the internal flag is hidden');
    assert.ok(!demo.includes('own options'), 'the demo runs on local only');
    assert.match(
      renderUsage(commands['relay']),
      /^Each backend has its own options: woolrx relay --from etcd --help$/m,
    );
  });

  it('states the version that package.json declares', async () => {
    const { packageVersion } = await import('../../src/cli/packageVersion.js');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(packageVersion, pkg.version);
  });
});
