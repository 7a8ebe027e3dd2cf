import type { IOptions } from 'etcd3';
import { loadEtcd3 } from './loadEtcd3.js';

/** What etcd3 expects of `faultHandling.host(...)`. */
type HostPolicy = ReturnType<NonNullable<NonNullable<IOptions['faultHandling']>['host']>>;

/**
 * Thrown for a host whose circuit is open: recoverable, so the client tries
 * another host. A class of its own (etcd3 passes errors whose constructor is
 * not `Error` through unchanged); marked recoverable when made, not by a
 * computed `[RecoverableError]` field, which would read etcd3 when this module
 * loads (etcd3 is loaded on first use only). Its `cause` is the endpoint's
 * last failure.
 */
class HostUnavailableError extends Error {}

function hostUnavailableError(message: string, cause: unknown): Error {
  const error = new HostUnavailableError(message, cause === undefined ? undefined : { cause });
  error.name = 'HostUnavailableError';
  Object.defineProperty(error, loadEtcd3().RecoverableError, { value: true });
  return error;
}

/**
 * A per-endpoint circuit breaker for the etcd3 client's connection pool:
 * after `threshold` consecutive network-level failures, calls skip the
 * endpoint (the pool moves on to the next) for `cooldownMs`; the next call
 * after that tries it again, and one more failure opens it again at once.
 *
 * It replaces etcd3's default (3 failures, then 5 s open), so that a
 * client is back within about a second of a cluster or a connection coming
 * back, while a dead member is still skipped. Only `execute` is used by the
 * pool (etcd3 1.x).
 * @param host The endpoint, for messages.
 * @param threshold Consecutive failures that open the circuit.
 * @param cooldownMs How long an open circuit skips the endpoint.
 * @internal
 */
export function hostBreaker(host: string, threshold = 3, cooldownMs = 1000): HostPolicy {
  let failures = 0;
  let openUntil = 0;
  let lastFailure: unknown;
  const policy = {
    async execute<T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> {
      if (failures >= threshold && Date.now() < openUntil) {
        throw hostUnavailableError(
          `etcd endpoint ${host} is skipped for a moment after ${failures} failures`,
          lastFailure,
        );
      }
      try {
        const result = await fn({ signal: new AbortController().signal });
        failures = 0;
        lastFailure = undefined;
        return result;
      } catch (error) {
        if (error instanceof Error && loadEtcd3().isRecoverableError(error)) {
          failures++;
          lastFailure = error;
          if (failures >= threshold) openUntil = Date.now() + cooldownMs;
        }
        throw error;
      }
    },
  };
  return policy as unknown as HostPolicy;
}
