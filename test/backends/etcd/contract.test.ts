// The backend contract suite against a real single-node etcd started for
// this file (loopback, free ports, tmpfs data directory; always stopped).
import assert from 'node:assert/strict';
import { EtcdConnection } from '../../../src/backends/etcd/EtcdConnection.js';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import { describeDiscoveryContract } from '../../contract/discoveryContract.js';
import { spawnChildPublisher } from '../../contract/spawnChildPublisher.js';
import { startEtcd } from './etcdHarness.js';

describeDiscoveryContract(
  'etcd',
  async () => {
    const etcd = await startEtcd();
    return {
      discovery: (namespace) => etcdDiscovery(namespace, { endpoints: etcd.endpoints, ttl: 5 }),
      // A lease of 2 s: what a killed child registered expires soon after.
      spawnPublisher: (namespace) => spawnChildPublisher('etcd', namespace, { endpoints: etcd.endpoints, ttl: 2 }),
      teardown: () => etcd.dispose(),
    };
  },
  {
    settleMs: 50,
    reapsDeadProcesses: { withinMs: 8000 },
    assertReleased: (discovery) => {
      const connection = EtcdConnection.of(discovery);
      assert.ok(connection, 'not an etcd discovery');
      assert.equal(connection.users, 0, 'a subscription or publisher still holds the client');
      assert.equal(connection.open, false, 'the etcd client is still open');
    },
  },
);
