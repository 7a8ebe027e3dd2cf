/**
 * 200 workers published at once over real mDNS (publisher and subscriber in
 * two network namespaces joined by a veth): every one is added, a late
 * subscriber gets all of them from one query, and closing the publisher
 * drops them all. Bounded: 200 workers, 30 s.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { agentsOnTwoHosts } from './agent.js';

const NAMESPACE = 'many-workers';
const COUNT = 200;

describe('lanDiscovery with 200 workers', { timeout: 60_000 }, () => {
  const hosts = agentsOnTwoHosts('many', 2);

  for (const probe of [false, true]) {
    it(
      `${COUNT} workers published at once (probe ${probe}) are all added, found by a late subscriber, and all dropped on close`,
      { timeout: 30_000 },
      async () => {
        const { publisher, subscriber } = hosts;
        const id = `p${String(probe)}`;
        subscriber.send({ op: 'subscribe', id: `early${id}`, namespace: NAMESPACE });
        publisher.send({ op: 'publisher', id, namespace: NAMESPACE, options: { probe } });
        await subscriber.waitFor((r) => r.ev === 'subscribed' && r.id === `early${id}`, 'subscribed');
        const workers = Array.from({ length: COUNT }, (_, i) =>
          workerInfo({
            uid: randomUUID(),
            address: `10.213.2.1:${8000 + i}`,
            pid: 30,
            version: '1',
            tags: i % 2 === 0 ? ['gpu'] : [],
            extra: { index: String(i) },
          }),
        );
        const uids = new Set(workers.map((w) => w.uid));
        const started = Date.now();
        await publisher.ok({ op: 'publishMany', id, type: 'worker-added', workers }, 20_000);
        const count = (sub: string, type: string): number =>
          new Set(
            subscriber
              .events(sub)
              .filter((r) => r.type === type && uids.has(r.worker?.uid ?? ''))
              .map((r) => r.worker?.uid),
          ).size;
        await subscriber.waitUntil(
          () => (count(`early${id}`, 'worker-added') === COUNT ? true : undefined),
          `${COUNT} added`,
          15_000,
        );
        const elapsed = Date.now() - started;
        assert.ok(elapsed < 15_000, `all added in ${elapsed} ms`);
        assert.equal(
          subscriber.events(`early${id}`).filter((r) => uids.has(r.worker?.uid ?? '')).length,
          COUNT,
          'exactly one event per worker',
        );
        for (const event of subscriber.events(`early${id}`)) {
          const index = Number(event.worker?.extra.index);
          assert.equal(event.worker?.address, `10.213.2.1:${8000 + index}`);
        }

        subscriber.send({ op: 'subscribe', id: `late${id}`, namespace: NAMESPACE });
        await subscriber.waitUntil(
          () => (count(`late${id}`, 'worker-added') === COUNT ? true : undefined),
          `${COUNT} added (late)`,
          10_000,
        );

        await publisher.ok({ op: 'close', id }, 20_000);
        await subscriber.waitUntil(
          () =>
            count(`early${id}`, 'worker-dropped') === COUNT && count(`late${id}`, 'worker-dropped') === COUNT
              ? true
              : undefined,
          () =>
            `${COUNT} dropped (early ${count(`early${id}`, 'worker-dropped')}, late ${count(`late${id}`, 'worker-dropped')})`,
          10_000,
        );
        subscriber.send({ op: 'unsubscribe', id: `early${id}` });
        subscriber.send({ op: 'unsubscribe', id: `late${id}` });
      },
    );
  }
});
