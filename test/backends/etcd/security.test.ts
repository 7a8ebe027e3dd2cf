// etcd over TLS with a self-signed certificate this test generates (openssl),
// and etcd with authentication enabled (root user and role, then a user with
// read/write on the woolrx prefix).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EtcdAuthenticationFailedError, EtcdPermissionDeniedError, Range } from 'etcd3';
import { EtcdConnection } from '../../../src/backends/etcd/EtcdConnection.js';
import { etcdDiscovery } from '../../../src/backends/etcd/etcdDiscovery.js';
import type { Discovery } from '../../../src/discovery/types.js';
import { startEtcd, type EtcdCluster } from './etcdHarness.js';
import { makeWorker, rawClient, Recorder, uniqueNamespace, waitFor } from './helpers.js';

function assertReleased(discovery: Discovery): void {
  const connection = EtcdConnection.of(discovery);
  assert.ok(connection);
  assert.equal(connection.users, 0);
  assert.equal(connection.open, false);
}

/** A publish is seen by a subscriber of another discovery, then withdrawn on close. */
async function roundTrip(publishing: Discovery, watching: Discovery): Promise<void> {
  const recorder = new Recorder(watching.events(), watching.diagnostics);
  const publisher = publishing.publisher();
  try {
    const worker = makeWorker();
    await publisher.publish('worker-added', worker);
    await waitFor(
      () => recorder.workers.has(worker.uid),
      () => `the worker; diagnostics: ${recorder.diagnostics.map((d) => d.message).join(' | ')}`,
    );
    await publisher.close();
    await waitFor(() => recorder.workers.size === 0, 'the drop on close');
    recorder.assertConsistent();
  } finally {
    recorder.unsubscribe();
    await publisher.close();
  }
  assertReleased(publishing);
  assertReleased(watching);
}

describe('etcd over TLS with a self-signed certificate', { timeout: 60_000 }, () => {
  let etcd: EtcdCluster;
  let dir: string;
  let ca: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'woolrx-etcd-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-subj',
        '/CN=woolrx-test-etcd',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'pipe' },
    );
    ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
    etcd = await startEtcd({ tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } });
  });
  after(async () => {
    await etcd?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes and subscribes over https:// with the certificate as CA', async () => {
    assert.ok(etcd.endpoints.every((endpoint) => endpoint.startsWith('https://')));
    const namespace = uniqueNamespace('tls');
    const options = { endpoints: etcd.endpoints, tls: { ca } };
    await roundTrip(
      etcdDiscovery(namespace, options),
      etcdDiscovery(namespace, { ...options, tls: { ca: Buffer.from(ca) } }),
    );
  });

  it('does not connect to a server whose certificate it does not trust', async () => {
    const discovery = etcdDiscovery(uniqueNamespace('untrusted'), {
      endpoints: etcd.endpoints,
      tls: true,
      requestTimeout: 2000,
    });
    const recorder = new Recorder(discovery.events(), discovery.diagnostics);
    const publisher = discovery.publisher();
    try {
      await assert.rejects(publisher.publish('worker-added', makeWorker()));
      await waitFor(() => recorder.diagnostics.length > 0, 'a warning');
      assert.equal(recorder.diagnostics[0]?.kind, 'warning');
      assert.equal(recorder.events.length, 0);
    } finally {
      recorder.unsubscribe();
      await publisher.close();
    }
    assertReleased(discovery);
  });
});

describe('etcd with authentication', { timeout: 60_000 }, () => {
  let etcd: EtcdCluster;

  before(async () => {
    etcd = await startEtcd();
    const admin = rawClient(etcd.endpoints);
    try {
      await admin.role('root').create();
      await (await admin.user('root').create('root-secret')).addRole('root');
      const role = await admin.role('woolrx-rw').create();
      await role.grant({ permission: 'Readwrite', range: Range.prefix('/woolrx/') });
      await (await admin.user('alice').create('alice-secret')).addRole('woolrx-rw');
      await admin.user('bob').create('bob-secret'); // no role: no access
      await admin.auth.authEnable();
    } finally {
      admin.close();
    }
  });
  after(async () => {
    await etcd?.dispose();
  });

  it('publishes and subscribes as a user with read/write on the prefix', async () => {
    const namespace = uniqueNamespace('auth');
    const options = { endpoints: etcd.endpoints, auth: { username: 'alice', password: 'alice-secret' } };
    await roundTrip(etcdDiscovery(namespace, options), etcdDiscovery(namespace, options));
  });

  it('a wrong password or a user without access ends the stream and rejects publishes with the error', async () => {
    const cases = [
      { auth: { username: 'alice', password: 'wrong' }, error: EtcdAuthenticationFailedError },
      { auth: { username: 'bob', password: 'bob-secret' }, error: EtcdPermissionDeniedError },
    ];
    for (const { auth, error } of cases) {
      const discovery = etcdDiscovery(uniqueNamespace('denied'), { endpoints: etcd.endpoints, auth });
      const recorder = new Recorder(discovery.events());
      const publisher = discovery.publisher();
      try {
        await waitFor(() => recorder.error !== undefined, `${auth.username}: the stream to end`);
        assert.ok(recorder.error instanceof error, `${auth.username}: ${String(recorder.error)}`);
        await assert.rejects(publisher.publish('worker-added', makeWorker()), error);
      } finally {
        recorder.unsubscribe();
        await publisher.close();
      }
      assertReleased(discovery);
    }
    // Without credentials at all, nothing gets through either.
    const anonymous = etcdDiscovery(uniqueNamespace('anon'), { endpoints: etcd.endpoints });
    const recorder = new Recorder(anonymous.events());
    try {
      await waitFor(() => recorder.error !== undefined, 'the anonymous stream to end');
      assert.match(String(recorder.error), /user name is empty/);
    } finally {
      recorder.unsubscribe();
    }
    assertReleased(anonymous);
  });
});
