import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import packet from 'dns-packet';
import { implausibleHeader } from '../../../src/backends/lan/implausibleHeader.js';

describe('implausibleHeader', () => {
  it('passes real DNS messages, whatever their sections', () => {
    const query = packet.encode({
      type: 'query',
      id: 0,
      questions: [{ name: '_wool-abcdef._tcp.local', type: 'PTR' }],
    });
    const response = packet.encode({
      type: 'response',
      id: 0,
      answers: [
        { name: '_wool-abcdef._tcp.local', type: 'PTR', ttl: 120, data: 'x._wool-abcdef._tcp.local' },
        { name: 'x._wool-abcdef._tcp.local', type: 'TXT', ttl: 120, data: [] },
      ],
      additionals: [{ name: 'h.local', type: 'A', ttl: 120, data: '127.0.0.1' }],
    });
    const empty = packet.encode({ type: 'response', id: 0 });
    for (const message of [query, response, empty]) assert.equal(implausibleHeader(message), undefined);
  });

  it('refuses a header whose counts need more bytes than the datagram has, naming them', () => {
    const flood = Buffer.alloc(1000, 0xff);
    flood.writeUInt16BE(0x8400, 2);
    assert.equal(
      implausibleHeader(flood),
      'its header announces 65535 question(s) and 196605 record(s), which need at least 2490342 bytes, in a 1000-byte datagram',
    );
    const oneTooMany = Buffer.alloc(12 + 5);
    oneTooMany.writeUInt16BE(2, 4); // two questions, room for one
    assert.match(
      implausibleHeader(oneTooMany) ?? '',
      /2 question\(s\) and 0 record\(s\), which need at least 22 bytes, in a 17-byte datagram/,
    );
    const fits = Buffer.alloc(12 + 11);
    fits.writeUInt16BE(1, 6); // one answer: the smallest one fits
    assert.equal(implausibleHeader(fits), undefined);
  });

  it('refuses a datagram shorter than a header', () => {
    assert.equal(
      implausibleHeader(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01])),
      'a 6-byte datagram is shorter than a DNS header',
    );
    assert.equal(implausibleHeader(new Uint8Array(0)), 'a 0-byte datagram is shorter than a DNS header');
  });
});
