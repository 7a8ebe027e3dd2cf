import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { MissingDependencyError } from '../../src/errors/MissingDependencyError.js';
import { PublisherClosedError } from '../../src/errors/PublisherClosedError.js';
import { WoolrxError } from '../../src/errors/WoolrxError.js';
import { WorkerNotFoundError } from '../../src/errors/WorkerNotFoundError.js';

describe('WoolrxError', () => {
  it('instanceof follows the class hierarchy', () => {
    const error = new WorkerNotFoundError('u', 'ns');
    assert.ok(error instanceof WorkerNotFoundError);
    assert.ok(error instanceof WoolrxError);
    assert.ok(error instanceof Error);
    assert.equal(error instanceof PublisherClosedError, false);
    assert.equal(new WoolrxError('X', 'x') instanceof WorkerNotFoundError, false);
    for (const value of [null, undefined, 1, 'WoolrxError', {}, new Error('x'), { code: 'WOOLRX_WORKER_NOT_FOUND' }]) {
      assert.equal(value instanceof WoolrxError, false, JSON.stringify(value));
    }
  });

  it('a user subclass is recognised by its own name and its ancestors', () => {
    class MyError extends WorkerNotFoundError {}
    const error = new MyError('u', 'ns');
    assert.equal(error.name, 'MyError');
    assert.ok(error instanceof MyError && error instanceof WorkerNotFoundError && error instanceof WoolrxError);
  });

  it("an error from the other build (ESM vs CJS) is an instance of this build's classes", () => {
    // dist/ is built by `npm test` (pretest); both builds are loaded through the exports map.
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { createRequire } from 'node:module';
      import * as esm from 'woolrx';
      const cjs = createRequire(import.meta.url)('woolrx');
      const fromCjs = new cjs.WorkerNotFoundError('u', 'ns');
      const fromEsm = new esm.MissingDependencyError('etcd3', 'woolrx/etcd', false);
      console.log(JSON.stringify([
        esm.WoolrxError !== cjs.WoolrxError,
        fromCjs instanceof esm.WorkerNotFoundError, fromCjs instanceof esm.WoolrxError,
        fromCjs instanceof esm.PublisherClosedError,
        fromEsm instanceof cjs.MissingDependencyError, fromEsm instanceof cjs.WoolrxError,
      ]));`,
      ],
      { encoding: 'utf8' },
    );
    assert.deepEqual(JSON.parse(out), [true, true, true, false, true, true]);
  });
});

describe('MissingDependencyError', () => {
  it('names the package and the command to install it', () => {
    const error = new MissingDependencyError('etcd3', 'woolrx/etcd', false, {
      cause: new Error("Cannot find module 'etcd3'"),
    });
    assert.equal(error.code, 'WOOLRX_MISSING_DEPENDENCY');
    assert.equal(error.packageName, 'etcd3');
    assert.equal(error.entry, 'woolrx/etcd');
    assert.equal(error.message, 'woolrx/etcd needs the package etcd3, which is not installed: npm install etcd3');
    assert.ok(error.cause instanceof Error);
  });

  it('for an installed package that does not load, says to rebuild it and why', () => {
    const error = new MissingDependencyError('etcd3', 'woolrx/etcd', true, {
      cause: new Error("Cannot find module '@grpc/grpc-js'\nRequire stack: ..."),
    });
    assert.match(
      error.message,
      /^woolrx\/etcd cannot load etcd3 \(Cannot find module '@grpc\/grpc-js'\): .*npm rebuild etcd3/,
    );
  });
});
