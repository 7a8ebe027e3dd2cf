import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Observable, Subject } from 'rxjs';
import { runCli } from '../../src/cli/runCli.js';
import { commands } from '../../src/cli/commands.js';
import type { CliRegistry } from '../../src/cli/parseCommandLine.js';
import type { CliValues } from '../../src/cli/types.js';
import { discoveryEvent } from '../../src/events/discoveryEvent.js';
import type { DiscoveryEvent, DiscoveryEventType, DiscoveryItem, WorkerSnapshot } from '../../src/events/types.js';
import { toSnapshots } from '../../src/operators/toSnapshots.js';
import type { Discovery, DiscoveryDiagnostic, WorkerPublisher } from '../../src/discovery/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';
import type { WorkerInfo } from '../../src/model/types.js';
import { packageVersion } from '../../src/cli/packageVersion.js';

class Sink extends Writable {
  text = '';
  constructor(private readonly failWith?: string) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.failWith !== undefined) {
      callback(Object.assign(new Error(`write ${this.failWith}`), { code: this.failWith }));
      return;
    }
    this.text += chunk.toString('utf8');
    callback();
  }
}

/** A scripted backend: the test drives its events and records what the CLI did. */
class FakeDiscovery implements Discovery {
  readonly events$ = new Subject<DiscoveryEvent>();
  readonly diagnostics = new Subject<DiscoveryDiagnostic>();
  readonly published: [DiscoveryEventType, WorkerInfo][] = [];
  subscribed = 0;
  unsubscribed = 0;
  closed = 0;
  failPublish: Error | undefined;
  constructor(
    readonly namespace: string,
    readonly values: CliValues,
  ) {}
  events(): Observable<DiscoveryEvent> {
    return new Observable<DiscoveryEvent>((subscriber) => {
      this.subscribed += 1;
      const inner = this.events$.subscribe(subscriber);
      return () => {
        this.unsubscribed += 1;
        inner.unsubscribe();
      };
    });
  }
  snapshots(): Observable<WorkerSnapshot> {
    return this.events().pipe(toSnapshots());
  }
  watch(): Observable<DiscoveryItem> {
    return this.events();
  }
  publisher(): WorkerPublisher {
    const published = this.published;
    const failure = (): Error | undefined => this.failPublish;
    const onClose = (): void => {
      this.closed += 1;
    };
    let closed = false;
    return {
      namespace: this.namespace,
      get closed() {
        return closed;
      },
      publish(type, worker) {
        const error = failure();
        if (error !== undefined) return Promise.reject(error);
        published.push([type, worker]);
        return Promise.resolve();
      },
      close() {
        if (!closed) onClose();
        closed = true;
        return Promise.resolve();
      },
      [Symbol.asyncDispose]() {
        return this.close();
      },
    };
  }
}

function harness(
  options: { stdoutError?: string; stderrError?: string; createError?: Error; publishError?: Error } = {},
) {
  const created: FakeDiscovery[] = [];
  const registry: CliRegistry = {
    commands,
    backends: {
      fake: {
        summary: 'scripted',
        flags: { knob: { type: 'string', description: 'a knob' } },
        create: (namespace, values) => {
          if (options.createError !== undefined) throw options.createError;
          const discovery = new FakeDiscovery(namespace, values);
          discovery.failPublish = options.publishError;
          created.push(discovery);
          return discovery;
        },
      },
    },
  };
  const stdout = new Sink(options.stdoutError);
  const stderr = new Sink(options.stderrError);
  const controller = new AbortController();
  const start = (argv: string[]) =>
    runCli(argv, { stdout, stderr, signal: controller.signal, now: () => new Date(2026, 0, 1, 12, 0, 0, 0) }, registry);
  return { created, stdout, stderr, controller, start };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const worker = workerInfo({
  uid: '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11',
  address: '127.0.0.1:50051',
  pid: 4242,
  version: '0.13.1',
  tags: ['gpu'],
});

describe('runCli', () => {
  it('prints help and version on stdout with status 0', async () => {
    const h = harness();
    assert.equal(await h.start(['--help']), 0);
    assert.match(h.stdout.text, /^Usage: woolrx <command>/);
    assert.equal(await h.start(['watch', '--help']), 0);
    assert.match(h.stdout.text, /Usage: woolrx watch/);
    assert.equal(await h.start(['--version']), 0);
    assert.ok(h.stdout.text.endsWith(`\n${packageVersion}\n`));
    assert.equal(h.stderr.text, '');
  });

  it('reports bad arguments on stderr: one line, then one pointing at --help; status 2', async () => {
    const h = harness();
    assert.equal(await h.start(['watch', '-b', 'fake']), 2);
    assert.equal(h.stderr.text, "woolrx watch: missing --namespace\nRun 'woolrx watch --help' for the options.\n");
    assert.equal(h.stdout.text, '');
    assert.equal(h.created.length, 0);
  });

  it('turns a TypeError from the backend factory (a bad namespace) into status 2', async () => {
    const h = harness({ createError: new TypeError('Invalid namespace: "../x"') });
    assert.equal(await h.start(['watch', '-b', 'fake', '-n', '../x']), 2);
    assert.equal(
      h.stderr.text,
      'woolrx watch: Invalid namespace: "../x"\nRun \'woolrx watch --help\' for the options.\n',
    );
  });

  it('watch --json: one NDJSON line per event, diagnostics on stderr, unsubscribes on abort', async () => {
    const h = harness();
    const done = h.start(['watch', '-b', 'fake', '-n', 'pool', '--json', '--knob', 'k']);
    await tick();
    const [discovery] = h.created;
    assert.ok(discovery);
    assert.equal(discovery.namespace, 'pool');
    assert.equal(discovery.values['knob'], 'k');
    assert.equal(discovery.subscribed, 1);
    discovery.events$.next(discoveryEvent('worker-added', worker));
    discovery.diagnostics.next({
      kind: 'malformed-record',
      namespace: 'pool',
      message: 'bad length 9999',
      uid: worker.uid,
    });
    discovery.events$.next(discoveryEvent('worker-dropped', worker));
    h.controller.abort();
    assert.equal(await done, 0);
    assert.equal(discovery.unsubscribed, 1);
    const lines = h.stdout.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as DiscoveryEvent);
    assert.deepEqual(
      lines.map((e) => e.type),
      ['worker-added', 'worker-dropped'],
    );
    const { options: _options, ...fields } = JSON.parse(JSON.stringify(worker)) as Record<string, unknown>;
    assert.deepEqual(lines[0]?.worker, fields, "wool's default channel options left out");
    assert.equal(h.stderr.text, `woolrx watch: malformed-record (worker ${worker.uid}): bad length 9999\n`);
    discovery.events$.next(discoveryEvent('worker-added', worker));
    assert.equal(h.stdout.text.trimEnd().split('\n').length, 2, 'nothing written after stopping');
  });

  it('watch without --json writes readable lines', async () => {
    const h = harness();
    const done = h.start(['watch', '-b', 'fake', '-n', 'pool']);
    await tick();
    h.created[0]?.events$.next(discoveryEvent('worker-updated', worker));
    h.controller.abort();
    assert.equal(await done, 0);
    assert.match(h.stdout.text, /^12:00:00\.000 ~ 6f1d2b1c 127\.0\.0\.1:50051 +4242 0\.13\.1 +gpu +-\n$/);
  });

  it('watch stops quietly with status 0 when stdout is a closed pipe', async () => {
    const h = harness({ stdoutError: 'EPIPE' });
    const done = h.start(['watch', '-b', 'fake', '-n', 'pool', '--json']);
    await tick();
    h.created[0]?.events$.next(discoveryEvent('worker-added', worker));
    assert.equal(await done, 0);
    assert.equal(h.created[0]?.unsubscribed, 1);
    assert.equal(h.stderr.text, '');
  });

  it('watch and publish stop quietly with status 0 when the terminal is gone (EIO on stdout or on stderr)', async () => {
    // stdout fails: nothing is reported, the subscription ends.
    const out = harness({ stdoutError: 'EIO' });
    const watching = out.start(['watch', '-b', 'fake', '-n', 'pool', '--json']);
    await tick();
    out.created[0]?.events$.next(discoveryEvent('worker-added', worker));
    assert.equal(await watching, 0);
    assert.equal(out.created[0]?.unsubscribed, 1);
    assert.equal(out.stderr.text, '');

    // stderr fails (a diagnostic is the first thing written): the same.
    const err = harness({ stderrError: 'EIO' });
    const watchingErr = err.start(['watch', '-b', 'fake', '-n', 'pool']);
    await tick();
    err.created[0]?.diagnostics.next({ kind: 'warning', namespace: 'pool', message: 'a warning' });
    assert.equal(await watchingErr, 0);
    assert.equal(err.created[0]?.unsubscribed, 1);

    // publish withdraws its worker when stderr fails.
    const pub = harness({ stderrError: 'EPIPE' });
    const publishing = pub.start(['publish', '-b', 'fake', '-n', 'pool', '-a', 'h:1']);
    await tick();
    pub.created[0]?.diagnostics.next({ kind: 'warning', namespace: 'pool', message: 'a warning' });
    assert.equal(await publishing, 0);
    assert.equal(pub.created[0]?.closed, 1);
    assert.equal(pub.created[0]?.published.length, 1);
  });

  it('reports another stdout failure on stderr, then stops', async () => {
    const h = harness({ stdoutError: 'ENOSPC' });
    const done = h.start(['watch', '-b', 'fake', '-n', 'pool', '--json']);
    await tick();
    h.created[0]?.events$.next(discoveryEvent('worker-added', worker));
    assert.equal(await done, 0);
    assert.equal(h.stderr.text, 'woolrx watch: stdout: write ENOSPC\n');
  });

  it('watch fails with status 1 when the event stream errors', async () => {
    const h = harness();
    const done = h.start(['watch', '-b', 'fake', '-n', 'pool']);
    await tick();
    h.created[0]?.events$.error(new Error('segment vanished'));
    assert.equal(await done, 1);
    assert.equal(h.stderr.text, 'woolrx watch: segment vanished\n');
  });

  it('publish registers the worker, prints its uid, withdraws it on abort', async () => {
    const h = harness();
    const uid = '00000000-0000-4000-8000-000000000001';
    const done = h.start([
      'publish',
      '-b',
      'fake',
      '-n',
      'pool',
      '-a',
      '[::1]:9000',
      '--uid',
      uid.toUpperCase(),
      '--pid',
      '17',
      '--version',
      '2.0',
      '--tag',
      'b',
      '--tag',
      'a',
      '--tag',
      'b',
      '--extra',
      'zone=eu=1',
      '--secure',
    ]);
    await tick();
    const [discovery] = h.created;
    assert.ok(discovery);
    assert.equal(h.stdout.text, `${uid}\n`);
    assert.equal(discovery.closed, 0);
    assert.deepEqual(discovery.published, [
      [
        'worker-added',
        workerInfo({
          uid,
          address: '[::1]:9000',
          pid: 17,
          version: '2.0',
          tags: ['a', 'b'],
          extra: { zone: 'eu=1' },
          secure: true,
        }),
      ],
    ]);
    h.controller.abort();
    assert.equal(await done, 0);
    assert.equal(discovery.closed, 1);
  });

  it('publish defaults uid to a random UUID, pid to its own, version to woolrx', async () => {
    const h = harness();
    h.controller.abort();
    assert.equal(await h.start(['publish', '-b', 'fake', '-n', 'pool', '-a', 'localhost:1']), 0);
    const [[type, published] = []] = h.created[0]?.published ?? [];
    assert.equal(type, 'worker-added');
    assert.ok(published);
    assert.match(published.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(published.pid, process.pid);
    assert.equal(published.version, packageVersion);
    assert.equal(h.stdout.text, `${published.uid}\n`);
    assert.equal(h.created[0]?.closed, 1);
  });

  it('publish reports a failing publish with status 1 and closes the publisher', async () => {
    const h = harness({ publishError: new Error('namespace "pool" is full (capacity 4)') });
    assert.equal(await h.start(['publish', '-b', 'fake', '-n', 'pool', '-a', 'localhost:1']), 1);
    const created = h.created;
    assert.ok(created[0]);
    assert.equal(h.stdout.text, '');
    assert.equal(h.stderr.text, 'woolrx publish: namespace "pool" is full (capacity 4)\n');
    assert.equal(created[0].closed, 1);
  });
});
