// The per-endpoint circuit breaker given to etcd3's connection pool.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { EtcdPermissionDeniedError, GRPCUnavailableError, isRecoverableError } from 'etcd3';
import { hostBreaker } from '../../../src/backends/etcd/hostBreaker.js';

interface Executable {
  execute<T>(fn: () => T | PromiseLike<T>): Promise<T>;
}

describe('hostBreaker', () => {
  it('skips the endpoint after 3 consecutive network failures, for the cooldown, then tries again', async () => {
    const breaker = hostBreaker('127.0.0.1:1', 3, 100) as unknown as Executable;
    let calls = 0;
    const failing = (): never => {
      calls++;
      throw new GRPCUnavailableError('down');
    };
    for (let i = 0; i < 3; i++) await assert.rejects(breaker.execute(failing), GRPCUnavailableError);
    assert.equal(calls, 3);
    await assert.rejects(breaker.execute(failing), (error: unknown) => {
      assert.ok(error instanceof Error && isRecoverableError(error), 'recoverable: the pool tries another endpoint');
      assert.match(error.message, /127\.0\.0\.1:1 is skipped/);
      return true;
    });
    assert.equal(calls, 3, 'not called while open');
    await sleep(120);
    assert.equal(await breaker.execute(() => 'ok'), 'ok', 'tried again after the cooldown');
    // A success closed it: three more failures are needed to open it again.
    for (let i = 0; i < 2; i++) await assert.rejects(breaker.execute(failing), GRPCUnavailableError);
    assert.equal(await breaker.execute(() => 42), 42);
  });

  it('does not count errors that are not network failures', async () => {
    const breaker = hostBreaker('h', 1, 10_000) as unknown as Executable;
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        breaker.execute(() => {
          throw new EtcdPermissionDeniedError('no');
        }),
        EtcdPermissionDeniedError,
      );
    }
    assert.equal(await breaker.execute(() => 'still closed'), 'still closed');
  });
});
