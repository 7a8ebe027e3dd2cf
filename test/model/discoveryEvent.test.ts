import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import type { DiscoveryEventType } from '../../src/events/types.js';
import { testWorker } from '../../src/testing/testWorker.js';

describe('discoveryEvent', () => {
  it('builds frozen, structured-clone-safe events', () => {
    const event = discoveryEvent('worker-added', testWorker(1, { tags: ['gpu'] }));
    assert.ok(Object.isFrozen(event));
    assert.deepEqual(structuredClone(event), JSON.parse(JSON.stringify(event)));
  });

  it('rejects an unknown type naming it', () => {
    assert.throws(() => discoveryEvent('worker-moved' as DiscoveryEventType, testWorker(1)), /"worker-moved"/);
  });
});
