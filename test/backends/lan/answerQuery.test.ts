/**
 * answerQuery: what a LAN responder answers to each kind of query, on the
 * records workerRecords makes (no socket).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import type { QueryPacket } from 'multicast-dns';
import { answerQuery, type AnsweredWorker, type ResponderZone } from '../../../src/backends/lan/answerQuery.js';
import { workerRecords } from '../../../src/backends/lan/workerRecords.js';

const SERVICE = '_wool-ad3e53._tcp.local';

function announced(ipv6: string[] = []): AnsweredWorker {
  const uid = randomUUID();
  const records = workerRecords({
    serviceType: SERVICE,
    uid,
    port: 7000,
    ipv4: ['10.0.0.7'],
    ipv6,
    txt: [Buffer.from('pid=1'), Buffer.from('version=1')],
  });
  return { instance: `${uid}.${SERVICE}`, host: `${uid}.local`, records };
}

function zone(workers: AnsweredWorker[], probing: AnsweredWorker[] = []): ResponderZone {
  return {
    serviceType: SERVICE,
    announced: () => workers,
    // A worker still probing is known by name but not answered for (the responder's lookup hides it).
    lookup: (name) =>
      probing.some((w) => w.instance === name || w.host === name)
        ? undefined
        : workers.find((w) => w.instance === name || w.host === name),
  };
}

function query(...questions: [string, string][]): QueryPacket {
  return {
    type: 'query',
    id: 0,
    flags: 0,
    questions: questions.map(([name, type]) => ({ name, type })),
  } as unknown as QueryPacket;
}

const types = (records: Answer[]): string[] => records.map((record) => record.type);

describe('answerQuery', () => {
  const a = announced(['fd00::7']);
  const b = announced();

  it('answers the service type (PTR or ANY) with every announced worker, one bundle each', () => {
    for (const type of ['PTR', 'ANY']) {
      assert.deepEqual(answerQuery(query([SERVICE, type]), zone([a, b])), [a.records, b.records], type);
    }
    assert.deepEqual(answerQuery(query([SERVICE, 'SRV']), zone([a, b])), [], 'not a question about the PTR');
    assert.deepEqual(answerQuery(query([SERVICE, 'PTR']), zone([])), []);
  });

  it('matches names case-insensitively', () => {
    assert.deepEqual(answerQuery(query([SERVICE.toUpperCase(), 'PTR']), zone([a])), [a.records]);
    assert.deepEqual(types(answerQuery(query([a.host.toUpperCase(), 'A']), zone([a])).flat()), ['A']);
  });

  it('answers the DNS-SD service enumeration with the service type, only while a worker is announced', () => {
    const [answer] = answerQuery(query(['_services._dns-sd._udp.local', 'PTR']), zone([a, b]));
    assert.deepEqual(answer, [{ name: '_services._dns-sd._udp.local', type: 'PTR', ttl: 4500, data: SERVICE }]);
    assert.deepEqual(answerQuery(query(['_services._dns-sd._udp.local', 'PTR']), zone([])), []);
  });

  it('answers an instance name with the records asked for, adding the addresses to an SRV', () => {
    assert.deepEqual(types(answerQuery(query([a.instance, 'SRV']), zone([a])).flat()), ['SRV', 'A', 'AAAA']);
    assert.deepEqual(types(answerQuery(query([a.instance, 'TXT']), zone([a])).flat()), ['TXT']);
    assert.deepEqual(types(answerQuery(query([a.instance, 'ANY']), zone([a])).flat()), ['SRV', 'TXT', 'A', 'AAAA']);
    assert.deepEqual(answerQuery(query([a.instance, 'A']), zone([a])), [], 'no A record under the instance name');
  });

  it('answers a host name with its address records of the type asked for', () => {
    assert.deepEqual(types(answerQuery(query([a.host, 'A']), zone([a])).flat()), ['A']);
    assert.deepEqual(types(answerQuery(query([a.host, 'AAAA']), zone([a])).flat()), ['AAAA']);
    assert.deepEqual(types(answerQuery(query([a.host, 'ANY']), zone([a])).flat()), ['A', 'AAAA']);
    assert.deepEqual(answerQuery(query([b.host, 'AAAA']), zone([b])), [], 'b has no IPv6 address');
  });

  it('says nothing about names it does not hold, or holds but has not announced yet', () => {
    assert.deepEqual(answerQuery(query([`${randomUUID()}.${SERVICE}`, 'ANY'], ['other.local', 'A']), zone([a])), []);
    assert.deepEqual(answerQuery(query([b.instance, 'ANY'], [b.host, 'A']), zone([a, b], [b])), []);
    assert.deepEqual(
      answerQuery({ type: 'query', id: 0, flags: 0 } as unknown as QueryPacket, zone([a])),
      [],
      'no questions',
    );
  });

  it('sends each record once when questions overlap', () => {
    const bundles = answerQuery(query([SERVICE, 'PTR'], [a.instance, 'SRV'], [a.host, 'A']), zone([a, b]));
    assert.deepEqual(bundles, [a.records, b.records]);
    const both = answerQuery(query([a.instance, 'SRV'], [a.host, 'ANY']), zone([a]));
    assert.deepEqual(both.map(types), [['SRV', 'A', 'AAAA']], 'the host question adds nothing new');
  });

  it('leaves out what the query lists as known with at least half its TTL left (RFC 6762 §7.1)', () => {
    const withKnown = (known: Answer[], ...questions: [string, string][]): QueryPacket => ({
      ...query(...questions),
      answers: known,
    });
    const ptrOf = (worker: AnsweredWorker, ttl: number): Answer => ({
      name: SERVICE.toUpperCase(),
      type: 'PTR',
      ttl,
      data: worker.instance,
    });
    assert.deepEqual(
      answerQuery(withKnown([ptrOf(a, 4500)], [SERVICE, 'PTR']), zone([a, b])),
      [b.records],
      'a known PTR: that worker is left out whole',
    );
    assert.deepEqual(
      answerQuery(withKnown([ptrOf(a, 2250)], [SERVICE, 'PTR']), zone([a, b])),
      [b.records],
      'exactly half the TTL left is still known',
    );
    assert.deepEqual(
      answerQuery(withKnown([ptrOf(a, 2249)], [SERVICE, 'PTR']), zone([a, b])),
      [a.records, b.records],
      'under half: answered again',
    );
    assert.deepEqual(
      answerQuery(
        withKnown([{ name: SERVICE, type: 'PTR', ttl: 4500, data: `${randomUUID()}.${SERVICE}` }], [SERVICE, 'PTR']),
        zone([a, b]),
      ),
      [a.records, b.records],
      'another instance',
    );
    const srv = a.records.find((record) => record.type === 'SRV')!;
    assert.deepEqual(
      types(answerQuery(withKnown([srv], [a.instance, 'ANY']), zone([a])).flat()),
      ['TXT', 'A', 'AAAA'],
      'a known SRV is not repeated',
    );
    const address = a.records.find((record) => record.type === 'A')!;
    assert.deepEqual(
      types(answerQuery(withKnown([address], [a.host, 'ANY']), zone([a])).flat()),
      ['AAAA'],
      'a known address is not repeated',
    );
    assert.deepEqual(
      answerQuery(
        withKnown([{ name: a.host, type: 'A', ttl: 120, data: '10.9.9.9' }], [a.host, 'A']),
        zone([a]),
      ).flat(),
      [address],
      'another address is no known answer',
    );
  });
});
