// The state behind expireWorkers: leases renewed by sightings, expired by time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoveryEvent } from '../../src/events/types.js';
import { LeaseBook } from '../../src/operators/LeaseBook.js';
import { added, dropped, testWorker, updated } from '../../src/testing/index.js';

describe('LeaseBook', () => {
  it('normalises sightings: first is an add, changed metadata an update, unchanged nothing', () => {
    const book = new LeaseBook(10);
    const a = testWorker(1);
    const a2 = testWorker(1, { version: '2' });
    assert.deepEqual(book.sight(updated(a), 0), added(a));
    assert.equal(book.sight(added(testWorker(1)), 1), undefined);
    assert.deepEqual(book.sight(added(a2), 2), updated(a2));
    // A drop carries the metadata last reported, whatever the source's drop carries.
    assert.deepEqual(book.sight(dropped(a), 3), dropped(a2), 'a known uid: dropped with its last reported metadata');
    assert.equal(book.sight(dropped(a2), 4), undefined, 'an unknown uid: suppressed');
    assert.equal(book.size, 0);
  });

  it('expires leases in renewal order, lazily, and aims at the earliest deadline', () => {
    const book = new LeaseBook(10);
    const [a, b] = [testWorker(1), testWorker(2)];
    assert.equal(book.delay(0), undefined);
    book.sight(added(a), 0);
    book.sight(added(b), 2);
    book.sight(added(a), 4); // renews a: b now expires first
    assert.equal(book.delay(5), 7);
    assert.deepEqual([...book.expire(11)], []);
    const expiring = book.expire(12);
    assert.deepEqual(expiring.next().value, dropped(b));
    // A sighting during the delivery of a drop renews its worker in time.
    book.sight(added(a), 13);
    assert.equal(expiring.next().done, true);
    assert.equal(book.size, 1);
    assert.equal(book.delay(13), 10);
  });

  it('never moves a deadline back when the clock steps back', () => {
    const book = new LeaseBook(10);
    book.sight(added(testWorker(1)), 100);
    book.sight(added(testWorker(2)), 50);
    assert.equal(book.delay(100), 10, 'the second lease ends no earlier than the first');
    assert.deepEqual([...book.expire(109)], []);
    assert.equal([...book.expire(110)].length, 2);
  });

  it('throws a TypeError naming a malformed event', () => {
    const book = new LeaseBook(10);
    assert.throws(() => book.sight(null as unknown as DiscoveryEvent, 0), {
      name: 'TypeError',
      message: 'expireWorkers: event has no worker uid: null',
    });
    assert.throws(() => book.sight({ type: 'x', worker: testWorker(1) } as unknown as DiscoveryEvent, 0), {
      name: 'TypeError',
      message: 'expireWorkers: unknown event type "x"',
    });
  });
});
