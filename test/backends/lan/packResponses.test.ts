/**
 * packResponses: how a LAN responder packs worker records into responses.
 * Sizes are checked against dns-packet's own encoder (what multicast-dns
 * sends), not against packResponses' estimate.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import dnsPacket, { type Answer } from 'dns-packet';
import { PACKET_BUDGET, packResponses } from '../../../src/backends/lan/packResponses.js';
import { workerRecords } from '../../../src/backends/lan/workerRecords.js';

const SERVICE = '_wool-ad3e53._tcp.local';

function bundle(txtBytes = 40): Answer[] {
  return workerRecords({
    serviceType: SERVICE,
    uid: randomUUID(),
    port: 50051,
    ipv4: ['10.0.0.1'],
    ipv6: ['fd00::1'],
    txt: [Buffer.from('pid=1'), Buffer.from('version=1'), Buffer.from(`extra=${'x'.repeat(txtBytes)}`)],
  });
}

function encodedSize(answers: Answer[]): number {
  return dnsPacket.encodingLength({ type: 'response', answers });
}

describe('packResponses', () => {
  it('sends nothing for nothing', () => {
    assert.deepEqual(packResponses([]), []);
  });

  it('puts a few workers in one response', () => {
    const bundles = [bundle(), bundle()];
    const packets = packResponses(bundles);
    assert.equal(packets.length, 1);
    assert.deepEqual(packets[0], bundles.flat());
  });

  it('splits 200 workers into responses that each encode under the budget, in order, never splitting a worker', () => {
    const bundles = Array.from({ length: 200 }, () => bundle());
    const packets = packResponses(bundles);
    assert.ok(packets.length > 1);
    for (const answers of packets) assert.ok(encodedSize(answers) <= PACKET_BUDGET, `${encodedSize(answers)} bytes`);
    assert.deepEqual(packets.flat(), bundles.flat(), 'every record once, in order');
    // Each worker's records travel in one packet.
    const packetOf = new Map<Answer, number>();
    packets.forEach((answers, index) => answers.forEach((record) => packetOf.set(record, index)));
    for (const records of bundles) assert.equal(new Set(records.map((record) => packetOf.get(record))).size, 1);
    // No packet could have taken the next worker too: the packing is not wasteful.
    let next = 0;
    for (const answers of packets.slice(0, -1)) {
      next += answers.length / bundles[0]!.length;
      assert.ok(encodedSize([...answers, ...bundles[next]!]) > PACKET_BUDGET * 0.8, 'a packet is left well filled');
    }
  });

  it('sends a worker larger than the budget alone, and the budget is a parameter', () => {
    const big = bundle(1500);
    const small = bundle();
    assert.deepEqual(packResponses([small, big, small]), [small, big, small]);
    assert.equal(packResponses([small, small, small], 100_000).length, 1);
    assert.equal(packResponses([small, small, small], 1).length, 3);
  });
});
