/**
 * encodeResponses: the responses a LAN responder sends, encoded with name
 * compression. Checked by decoding them with dns-packet (what multicast-dns
 * and bonjour-service decode with): the same records, in order, each
 * response within the budget, a worker's records never split.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import dnsPacket, { type Answer } from 'dns-packet';
import { RESPONSE_BUDGET, encodeResponses } from '../../../src/backends/lan/encodeResponses.js';
import { workerRecords } from '../../../src/backends/lan/workerRecords.js';

const SERVICE = '_wool-ad3e53._tcp.local';

function bundle(txtBytes = 40, ipv6: string[] = ['fd00::1']): Answer[] {
  return workerRecords({
    serviceType: SERVICE,
    uid: randomUUID(),
    port: 50051,
    ipv4: ['10.0.0.1'],
    ipv6,
    txt: [Buffer.from('pid=1'), Buffer.from('version=1'), Buffer.from(`extra=${'x'.repeat(txtBytes)}`)],
  });
}

/**
 * A record as dns-packet decodes it, for comparing: keys sorted, TXT entries as strings, no class, `flush` always
 * present.
 */
function comparable(record: Answer): string {
  const sorted = (value: unknown): unknown => {
    if (Buffer.isBuffer(value)) return value.toString('latin1');
    if (Array.isArray(value)) return value.map(sorted);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  const { class: _class, ...rest } = record as Answer & { class?: unknown };
  return JSON.stringify(sorted({ ...rest, flush: (record as { flush?: boolean }).flush ?? false }));
}

function decodeAll(messages: readonly Buffer[]): Answer[][] {
  return messages.map((message) => {
    const packet = dnsPacket.decode(message);
    assert.equal(packet.type, 'response');
    assert.equal(packet.id, 0);
    assert.ok(((packet.flags ?? 0) & dnsPacket.AUTHORITATIVE_ANSWER) !== 0, 'authoritative');
    assert.equal(packet.questions?.length ?? 0, 0);
    return packet.answers ?? [];
  });
}

describe('encodeResponses', () => {
  it('sends nothing for nothing', () => {
    assert.deepEqual(encodeResponses([]), []);
    assert.deepEqual(encodeResponses([[], []]), []);
  });

  it('decodes to the same records (PTR, SRV, TXT, A, AAAA, cache-flush, goodbyes), in order', () => {
    const bundles = [
      bundle(),
      bundle(10, []),
      workerRecords({ serviceType: SERVICE, uid: randomUUID(), port: 1, ipv4: [], ipv6: ['::1'], txt: [] }, true),
    ];
    const responses = encodeResponses(bundles);
    assert.equal(responses.length, 1);
    assert.equal(responses[0]?.bundles, 3);
    assert.deepEqual(
      decodeAll(responses.map((r) => r.message))
        .flat()
        .map(comparable),
      bundles.flat().map(comparable),
    );
  });

  it('compresses names: a worker takes far fewer bytes than uncompressed', () => {
    const bundles = Array.from({ length: 5 }, () => bundle());
    const [response] = encodeResponses(bundles);
    const uncompressed = dnsPacket.encodingLength({ type: 'response', answers: bundles.flat() });
    assert.ok(
      response !== undefined && response.message.length < uncompressed * 0.6,
      `${response?.message.length} vs ${uncompressed} bytes`,
    );
  });

  it('splits 1 000 workers into responses within the budget, every record once, in order, never splitting a worker', () => {
    const bundles = Array.from({ length: 1000 }, () => bundle());
    const responses = encodeResponses(bundles);
    assert.ok(responses.length > 1);
    for (const { message } of responses) assert.ok(message.length <= RESPONSE_BUDGET, `${message.length} bytes`);
    assert.ok(RESPONSE_BUDGET + 20 + 8 <= 1500, 'within a 1500-byte MTU with the IPv4 and UDP headers');
    const decoded = decodeAll(responses.map((r) => r.message));
    assert.deepEqual(decoded.flat().map(comparable), bundles.flat().map(comparable));
    let next = 0;
    responses.forEach(({ bundles: held }, index) => {
      assert.equal(
        decoded[index]?.length,
        bundles.slice(next, next + held).flat().length,
        `response ${index} holds whole workers`,
      );
      next += held;
    });
    assert.equal(next, bundles.length);
    // No response could have taken the next worker too: the packing is not wasteful.
    next = 0;
    for (const { bundles: held } of responses.slice(0, -1)) {
      next += held;
      const [again] = encodeResponses(bundles.slice(next - held, next + 1), 100_000);
      assert.ok((again?.message.length ?? 0) > RESPONSE_BUDGET, 'the next worker would not have fitted');
    }
  });

  it('sends a worker larger than the budget alone, and the budget is a parameter', () => {
    const big = bundle(1500);
    const small = bundle();
    assert.deepEqual(
      encodeResponses([small, big, small]).map((r) => r.bundles),
      [1, 1, 1],
    );
    assert.equal(encodeResponses([small, small, small], 100_000).length, 1);
    assert.equal(encodeResponses([small, small, small], 1).length, 3);
  });

  it('names that differ only in case are written as given, not compressed onto each other', () => {
    const upper: Answer = { name: SERVICE.toUpperCase(), type: 'PTR', ttl: 10, data: `X.${SERVICE}` };
    const lower: Answer = { name: SERVICE, type: 'PTR', ttl: 10, data: `y.${SERVICE}` };
    const [answers] = decodeAll(encodeResponses([[upper], [lower]]).map((r) => r.message));
    assert.deepEqual(
      answers?.map((record) => [record.name, (record as { data: unknown }).data]),
      [
        [SERVICE.toUpperCase(), `X.${SERVICE}`],
        [SERVICE, `y.${SERVICE}`],
      ],
    );
  });
});
