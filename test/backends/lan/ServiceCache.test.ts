/**
 * ServiceCache: how a LAN browse applies mDNS responses, on synthetic
 * records (no socket): instances and their PTR/SRV/TXT, address records with
 * cache-flush, goodbyes, what a response touched, pruning and the resolve
 * back-off.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { ServiceCache } from '../../../src/backends/lan/ServiceCache.js';

const TYPE = '_wool-ad3e53._tcp.local';
const A = `aaaa.${TYPE}`;
const B = `bbbb.${TYPE}`;

const ptr = (instance: string, ttl = 4500): Answer => ({ name: TYPE, type: 'PTR', ttl, data: instance });
const srv = (instance: string, target: string, ttl = 120): Answer => ({
  name: instance,
  type: 'SRV',
  ttl,
  flush: true,
  data: { port: 7000, target, priority: 0, weight: 0 },
});
const txt = (instance: string, ttl = 4500): Answer => ({
  name: instance,
  type: 'TXT',
  ttl,
  flush: true,
  data: [Buffer.from('pid=1')],
});
const a = (host: string, ip: string, flush = true, ttl = 120): Answer => ({
  name: host,
  type: 'A',
  ttl,
  flush,
  data: ip,
});
const aaaa = (host: string, ip: string): Answer => ({ name: host, type: 'AAAA', ttl: 120, flush: true, data: ip });

const none = (): boolean => false;
const sorted = (set: ReadonlySet<string>): string[] => [...set].sort();

describe('ServiceCache', () => {
  it('normalises the service type and names the label of an instance', () => {
    const cache = new ServiceCache(`${TYPE.toUpperCase()}.`);
    assert.equal(cache.serviceType, TYPE);
    assert.equal(cache.labelOf(A), 'aaaa');
  });

  it('builds instances from PTR, SRV and TXT records, whatever their order and case, and ignores other services', () => {
    const cache = new ServiceCache(TYPE);
    const changes = cache.apply(
      [
        txt(A.toUpperCase()),
        srv(A, 'aaaa.local'),
        ptr(A),
        ptr('x._other._tcp.local'),
        srv('y._other._tcp.local', 'y.local'),
      ],
      1,
      none,
    );
    assert.deepEqual(sorted(changes.touched), [A]);
    assert.deepEqual(sorted(changes.goodbyes), []);
    assert.deepEqual(
      [...cache.instances()].map(([key]) => key),
      [A],
    );
    const instance = cache.get(A);
    assert.equal(instance?.ptr, true);
    assert.deepEqual(instance?.srv, { port: 7000, target: 'aaaa.local' });
    assert.equal(instance?.lastSeen, 1);
    assert.equal(cache.get(TYPE), undefined, 'the service type itself is no instance');
  });

  it('keeps address records per host: a flush replaces the set of its type, others add to it, TTL 0 removes; IPv4 is preferred', () => {
    const cache = new ServiceCache(TYPE);
    cache.apply([a('h.local', '10.0.0.1', false), a('h.local', '10.0.0.2', false)], 1, none);
    assert.equal(cache.addressOf('H.local'), '10.0.0.1');
    cache.apply([a('h.local', '10.0.0.3'), a('h.local', '10.0.0.4')], 2, none); // one packet, one flush
    assert.equal(cache.addressOf('h.local'), '10.0.0.3');
    cache.apply([a('h.local', '10.0.0.3', true, 0)], 3, none);
    assert.equal(cache.addressOf('h.local'), '10.0.0.4');
    cache.apply([a('h.local', '10.0.0.4', true, 0), aaaa('h.local', 'fd00::1')], 4, none);
    assert.equal(cache.addressOf('h.local'), 'fd00::1', 'IPv6 when there is no IPv4');
    assert.equal(cache.addressOf('other.local'), undefined);
  });

  it('an address record touches every instance whose target it is', () => {
    const cache = new ServiceCache(TYPE);
    cache.apply([ptr(A), srv(A, 'shared.local'), ptr(B), srv(B, 'shared.local')], 1, none);
    assert.deepEqual(sorted(cache.apply([a('shared.local', '10.0.0.9')], 2, none).touched), [A, B]);
    assert.deepEqual(sorted(cache.apply([a('unrelated.local', '10.0.0.8')], 3, none).touched), []);
  });

  it('a PTR goodbye is a goodbye; an SRV/TXT goodbye is one only for a worker, else it clears the record', () => {
    const cache = new ServiceCache(TYPE);
    cache.apply([ptr(A), srv(A, 'aaaa.local'), txt(A), ptr(B), srv(B, 'bbbb.local'), txt(B)], 1, none);
    const ptrBye = cache.apply([ptr(A, 0), txt(A)], 2, none);
    assert.deepEqual([sorted(ptrBye.goodbyes), sorted(ptrBye.touched)], [[A], []], 'a goodbye is not also touched');
    assert.equal(cache.get(A)?.ptr, false);
    const notWorker = cache.apply([srv(B, 'bbbb.local', 0)], 3, none);
    assert.deepEqual(sorted(notWorker.goodbyes), []);
    assert.equal(cache.get(B)?.srv, undefined);
    const worker = cache.apply([txt(B, 0)], 4, (key) => key === B);
    assert.deepEqual(sorted(worker.goodbyes), [B]);
    assert.equal(cache.get(B)?.txt, undefined);
  });

  it('asks for a name at most every 250 ms, and forgets the back-off with the instance', () => {
    const cache = new ServiceCache(TYPE);
    cache.apply([ptr(A)], 0, none);
    assert.equal(cache.mayAsk(A, 1000), true);
    assert.equal(cache.mayAsk(A.toUpperCase(), 1100), false);
    assert.equal(cache.mayAsk('aaaa.local', 1100), true, 'per name');
    assert.equal(cache.mayAsk(A, 1250), true);
    cache.delete(A);
    assert.equal(cache.get(A), undefined);
    assert.equal(cache.mayAsk(A, 1251), true, 'a forgotten instance starts afresh');
  });

  it('prune forgets instances unseen for longer than maxAge, and the hosts and back-offs nobody points at any more', () => {
    const cache = new ServiceCache(TYPE);
    cache.apply([ptr(A), srv(A, 'aaaa.local'), a('aaaa.local', '10.0.0.1')], 0, none);
    cache.apply([ptr(B), srv(B, 'bbbb.local'), a('bbbb.local', '10.0.0.2')], 5000, none);
    assert.equal(cache.mayAsk('aaaa.local', 5000), true);
    assert.deepEqual(cache.prune(5000, 5000), [], 'exactly maxAge old is kept');
    assert.deepEqual(cache.prune(5001, 5000), [A]);
    assert.deepEqual(
      [...cache.instances()].map(([key]) => key),
      [B],
    );
    assert.equal(cache.addressOf('aaaa.local'), undefined, "A's host is forgotten");
    assert.equal(cache.addressOf('bbbb.local'), '10.0.0.2');
    assert.equal(cache.mayAsk('aaaa.local', 5001), true, "A's host back-off is forgotten");
  });
});
