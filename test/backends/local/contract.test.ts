// The backend contract suite, run against localDiscovery (real shared memory).
import { localDiscovery } from '../../../src/backends/local/index.js';
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { describeDiscoveryContract } from '../../contract/discoveryContract.js';
import { spawnChildPublisher } from '../../contract/spawnChildPublisher.js';
import { assertClean, strayTestFiles } from './helpers.js';

describeDiscoveryContract(
  'local',
  () => ({
    discovery: (namespace) => localDiscovery(namespace, { pollInterval: 250 }),
    spawnPublisher: (namespace) => spawnChildPublisher('local', namespace, { pollInterval: 250 }),
  }),
  {
    settleMs: 100,
    // Liveness: each subscriber checks every worker's registrant once per poll interval.
    reapsDeadProcesses: { withinMs: 3000 },
    // Every watcher, timer and descriptor is closed on unsubscribe; what is left
    // to check from outside is that the last one out removed the segment, the
    // notification directory and the lock.
    assertReleased: (discovery) => assertClean(discovery.namespace),
  },
);

// The contract's workers carry this process's pid: none of their blocks may remain.
after(() => assert.deepEqual(strayTestFiles(), []));
