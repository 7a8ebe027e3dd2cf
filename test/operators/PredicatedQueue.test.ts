import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { firstValueFrom, lastValueFrom, Observable, of, toArray } from 'rxjs';
import { QueueClosedError } from '../../src/errors/QueueClosedError.js';
import { WoolrxError } from '../../src/errors/WoolrxError.js';
import { PredicatedQueue } from '../../src/operators/PredicatedQueue.js';
import { predicatedTake } from '../../src/operators/predicatedTake.js';

const any = (): boolean => true;

/** Tracks a promise's outcome without awaiting it. */
function track(promise: Promise<void>): { state: 'pending' | 'resolved' | 'rejected'; reason?: unknown } {
  const box: { state: 'pending' | 'resolved' | 'rejected'; reason?: unknown } = { state: 'pending' };
  promise.then(
    () => (box.state = 'resolved'),
    (reason: unknown) => {
      box.state = 'rejected';
      box.reason = reason;
    },
  );
  return box;
}

describe('PredicatedQueue: put and backpressure (real async)', () => {
  it('resolves a put at once while there is room, waits while full, admits waiting puts in order', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 2 });
    await queue.put('a');
    await queue.put('b');
    assert.equal(queue.full, true);
    const c = track(queue.put('c'));
    const d = track(queue.put('d'));
    await tick();
    assert.deepEqual([c.state, d.state], ['pending', 'pending']);
    assert.deepEqual(queue.items, ['a', 'b']);
    assert.equal(queue.tryPut('e'), false, 'tryPut refuses while full');

    assert.equal(await firstValueFrom(queue.take(any)), 'a');
    await tick();
    assert.deepEqual([c.state, d.state], ['resolved', 'pending'], 'first waiting put admitted first');
    assert.deepEqual(queue.items, ['b', 'c']);

    assert.deepEqual(await lastValueFrom(queue.take(any, 2).pipe(toArray())), ['b', 'c']);
    await tick();
    assert.equal(d.state, 'resolved');
    assert.deepEqual(queue.items, ['d']);
  });

  it('completes a waiting put at once when a taker takes its item, without it entering the buffer', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 1 });
    queue.tryPut('a');
    const x = track(queue.put('X'));
    await tick();
    assert.equal(x.state, 'pending');
    assert.equal(await firstValueFrom(queue.take((item) => item === 'X')), 'X');
    await tick();
    assert.equal(x.state, 'resolved');
    assert.deepEqual(queue.items, ['a']);
  });

  it('withdraws a waiting put when its AbortSignal aborts; the item never enters', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 1 });
    await queue.put('a');
    const controller = new AbortController();
    const reason = new Error('gave up');
    const b = queue.put('b', { signal: controller.signal });
    const c = track(queue.put('c'));
    controller.abort(reason);
    await assert.rejects(b, (err) => err === reason);
    assert.equal(await firstValueFrom(queue.take(any)), 'a');
    await tick();
    assert.equal(c.state, 'resolved', 'the put behind the aborted one is admitted');
    assert.deepEqual(queue.items, ['c']);
  });

  it('rejects a put whose signal is already aborted, and ignores an abort after admission', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 1 });
    await assert.rejects(queue.put('a', { signal: AbortSignal.abort(new Error('early')) }), /early/);
    assert.deepEqual(queue.items, []);
    const controller = new AbortController();
    await queue.put('b', { signal: controller.signal });
    controller.abort();
    assert.deepEqual(queue.items, ['b']);
  });

  it('rejects a bad signal with a TypeError naming it', async () => {
    const queue = new PredicatedQueue<string>();
    const bad = { signal: 'nope' } as unknown as { signal: AbortSignal };
    await assert.rejects(queue.put('a', bad), (err: unknown) => err instanceof TypeError && /"nope"/.test(err.message));
    assert.deepEqual(queue.items, []);
  });
});

describe('PredicatedQueue: close and error', () => {
  it('close: waiting and later puts fail with QueueClosedError; buffered items stay takeable', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 1 });
    queue.tryPut('a');
    const waiting = queue.put('b');
    const taker = lastValueFrom(queue.take((item) => item === 'z').pipe(toArray()));
    queue.close();
    queue.close(); // idempotent
    assert.equal(queue.closed, true);
    await assert.rejects(waiting, (err: unknown) => err instanceof QueueClosedError && err instanceof WoolrxError);
    await assert.rejects(queue.put('c'), QueueClosedError);
    assert.throws(
      () => queue.tryPut('c'),
      (err: unknown) => err instanceof QueueClosedError && err.code === 'WOOLRX_QUEUE_CLOSED',
    );
    assert.deepEqual(await taker, [], 'a taker nothing is left for completes');
    assert.deepEqual(await lastValueFrom(queue.take(any, 5).pipe(toArray())), ['a']);
  });

  it('error: takers error, items are discarded, puts fail with the error as cause', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 1 });
    queue.tryPut('a');
    const waiting = queue.put('b');
    const boom = new Error('boom');
    const taker = firstValueFrom(queue.take((item) => item === 'z'));
    queue.error(boom);
    queue.close(); // no effect once failed
    await assert.rejects(taker, (err) => err === boom);
    await assert.rejects(waiting, (err: unknown) => err instanceof QueueClosedError && err.cause === boom);
    await assert.rejects(queue.put('c'), (err: unknown) => err instanceof QueueClosedError && err.cause === boom);
    await assert.rejects(firstValueFrom(queue.take(() => true)), (err) => err === boom);
    assert.deepEqual(queue.items, []);
  });
});

describe('PredicatedQueue: remove', () => {
  it('removes matching buffered and waiting items, resolves their puts and admits others', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 2 });
    queue.tryPut('a');
    queue.tryPut('x1');
    const x2 = track(queue.put('x2'));
    const b = track(queue.put('b'));
    assert.equal(
      queue.remove((item) => item.startsWith('x')),
      2,
    );
    await tick();
    assert.deepEqual([x2.state, b.state], ['resolved', 'resolved']);
    assert.deepEqual(queue.items, ['a', 'b']);
    assert.equal(
      queue.remove(() => false),
      0,
    );
  });

  it('leaves the queue unchanged when match throws, and rejects a non-function', () => {
    const queue = new PredicatedQueue<string>();
    queue.tryPut('a');
    queue.tryPut('b');
    assert.throws(
      () =>
        queue.remove((item) => {
          if (item === 'b') throw new Error('bad match');
          return true;
        }),
      /bad match/,
    );
    assert.deepEqual(queue.items, ['a', 'b']);
    assert.throws(() => queue.remove('a' as unknown as (item: string) => boolean), /"a"/);
  });
});

describe('PredicatedQueue: re-entrancy', () => {
  it('keeps subscription order when a taker subscribes another taker from its next handler', () => {
    const queue = new PredicatedQueue<string>();
    for (const item of ['a', 'b', 'c']) queue.tryPut(item);
    const first: string[] = [];
    const second: string[] = [];
    queue.take(any, 2).subscribe((item) => {
      first.push(item);
      if (item === 'a') queue.take(any).subscribe((x) => second.push(x));
    });
    // The first taker subscribed earlier: it gets b, not the newcomer.
    assert.deepEqual(first, ['a', 'b']);
    assert.deepEqual(second, ['c']);
    assert.deepEqual(queue.items, []);
  });

  it('delivers an item put from a next handler after that handler returns, to one taker only', () => {
    const queue = new PredicatedQueue<string>();
    const log: string[] = [];
    queue.take(any, 2).subscribe((item) => {
      log.push(`1:${item}:start`);
      if (item === 'a') assert.equal(queue.tryPut('b'), true);
      log.push(`1:${item}:end`);
    });
    queue.take(any, 2).subscribe((item) => log.push(`2:${item}`));
    queue.tryPut('a');
    assert.deepEqual(log, ['1:a:start', '1:a:end', '1:b:start', '1:b:end']);
    queue.tryPut('c');
    assert.deepEqual(log.slice(4), ['2:c']);
  });

  it('gives an item put by a completing taker to the next taker, not back to it', () => {
    const queue = new PredicatedQueue<string>();
    const got: string[] = [];
    queue.take(any).subscribe((item) => {
      got.push(`1:${item}`);
      queue.tryPut(item.toUpperCase());
    });
    queue.take(any).subscribe((item) => got.push(`2:${item}`));
    queue.tryPut('a');
    assert.deepEqual(got, ['1:a', '2:A']);
    assert.equal(queue.size, 0);
  });

  it('refuses tryPut from a handler while full, but accepts put and delivers it in order', async () => {
    const queue = new PredicatedQueue<string>({ maxSize: 1 });
    queue.tryPut('a');
    const got: string[] = [];
    let refused: boolean | undefined;
    let later: Promise<void> | undefined;
    queue
      .take((item) => item !== 'a', 2)
      .subscribe((item) => {
        got.push(item);
        if (item === 'b') {
          refused = queue.tryPut('c');
          later = queue.put('d');
        }
      });
    queue.tryPut('b'); // full, but the taker wants it
    assert.equal(refused, false);
    assert.deepEqual(got, ['b', 'd']);
    await later;
    assert.deepEqual(queue.items, ['a']);
  });

  it('stops delivering to a taker that unsubscribes from its own handler: no item lost', () => {
    const queue = new PredicatedQueue<string>();
    const got: string[] = [];
    const subscription = queue.take(any, 3).subscribe((item) => {
      got.push(item);
      // Puts two items the taker would accept, then leaves before they are delivered.
      queue.tryPut('b');
      queue.tryPut('c');
      subscription.unsubscribe();
    });
    queue.tryPut('a');
    assert.deepEqual(got, ['a']);
    assert.deepEqual(queue.items, ['b', 'c']);
  });

  it('errors only the taker whose predicate throws, and asks each predicate once per item', () => {
    const queue = new PredicatedQueue<string>();
    const calls: string[] = [];
    const errors: unknown[] = [];
    queue
      .take((item: string) => {
        calls.push(`bad:${item}`);
        if (item === 'x') throw new Error('bad predicate');
        return false;
      }, 5)
      .subscribe({ error: (err: unknown) => errors.push(err) });
    queue.take((item: string) => (calls.push(`picky:${item}`), item === 'y')).subscribe();
    queue.tryPut('w');
    queue.tryPut('x');
    queue.tryPut('z');
    assert.equal(errors.length, 1);
    assert.deepEqual(calls, ['bad:w', 'picky:w', 'bad:x', 'picky:x', 'picky:z']);
    assert.deepEqual(queue.items, ['w', 'x', 'z']);
  });
});

describe('PredicatedQueue and predicatedTake: validation and interop', () => {
  it('rejects a bad maxSize or options with a TypeError naming the value', () => {
    for (const maxSize of [0, -1, 1.5, NaN, '2']) {
      assert.throws(
        () => new PredicatedQueue({ maxSize: maxSize as number }),
        (err: unknown) =>
          err instanceof TypeError && err.message.includes(`got ${maxSize === '2' ? '"2"' : String(maxSize)}`),
      );
    }
    assert.throws(() => new PredicatedQueue(null as unknown as object), /options must be an object, got null/);
    assert.equal(new PredicatedQueue().maxSize, Infinity);
    assert.equal(new PredicatedQueue({ maxSize: Infinity }).full, false);
  });

  it('rejects a bad predicate or count with a TypeError naming the value', () => {
    assert.throws(() => predicatedTake('gpu' as unknown as () => boolean), /predicate must be a function, got "gpu"/);
    for (const count of [0, -1, 2.5, NaN, '1']) {
      assert.throws(
        () => predicatedTake(any, count as number),
        (err: unknown) =>
          err instanceof TypeError && err.message.includes(`got ${count === '1' ? '"1"' : String(count)}`),
      );
    }
    assert.equal(typeof predicatedTake(any, Infinity), 'function');
  });

  it('takes one item by default; count Infinity takes every item until unsubscribed', async () => {
    const queue = new PredicatedQueue<number>();
    for (const n of [1, 2, 3]) queue.tryPut(n);
    assert.equal(await firstValueFrom(queue.take((n) => n > 1)), 2);
    assert.deepEqual(queue.items, [1, 3]);
    const all: number[] = [];
    const subscription = queue.take(() => true, Infinity).subscribe((n) => all.push(n));
    queue.tryPut(4);
    subscription.unsubscribe();
    queue.tryPut(5);
    assert.deepEqual(all, [1, 3, 4]);
    assert.deepEqual(queue.items, [5]);
  });

  it('is a plain class, not an Observable; predicatedTake on any source is filter then take', async () => {
    const queue = new PredicatedQueue<string>();
    assert.equal(queue instanceof Observable, false);
    assert.equal('subscribe' in queue, false);
    // A source carrying the old interop symbol is an ordinary Observable to predicatedTake.
    const calls: unknown[] = [];
    const foreign = Object.assign(of('a', 'G', 'H'), {
      [Symbol.for('woolrx.exclusiveTake@1')]: () => {
        calls.push('sniffed');
        return of('X');
      },
    });
    assert.deepEqual(
      await lastValueFrom(
        foreign.pipe(
          predicatedTake((item) => item !== 'a', 2),
          toArray(),
        ),
      ),
      ['G', 'H'],
    );
    assert.deepEqual(calls, []);
  });

  it('exposes a frozen snapshot of the items', () => {
    const queue = new PredicatedQueue<string>();
    queue.tryPut('a');
    const snapshot = queue.items;
    assert.equal(Object.isFrozen(snapshot), true);
    queue.tryPut('b');
    assert.deepEqual(snapshot, ['a']);
    assert.equal(queue.size, 2);
  });
});
