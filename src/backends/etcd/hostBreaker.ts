import { RecoverableError, isRecoverableError, type IOptions } from 'etcd3';

/** What etcd3 expects of `faultHandling.host(...)`. */
type HostPolicy = ReturnType<NonNullable<NonNullable<IOptions['faultHandling']>['host']>>;

/**
 * Made for a host whose circuit is open: recoverable, so the client tries
 * another host. (A function, not a class with a computed `[RecoverableError]`
 * field: that would read etcd3 when this module loads, and etcd3 is loaded on
 * first use only.)
 */
function hostUnavailableError(message: string): Error {
  const error = new Error(message);
  error.name = 'HostUnavailableError';
  Object.defineProperty(error, RecoverableError, { value: true });
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
 * @returns The policy.
 * @internal
 */
export function hostBreaker(host: string, threshold = 3, cooldownMs = 1000): HostPolicy {
  let failures = 0;
  let openUntil = 0;
  const policy = {
    async execute<T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> {
      if (failures >= threshold && Date.now() < openUntil) {
        throw hostUnavailableError(`etcd endpoint ${host} is skipped for a moment after ${failures} failures`);
      }
      try {
        const result = await fn({ signal: new AbortController().signal });
        failures = 0;
        return result;
      } catch (error) {
        if (error instanceof Error && isRecoverableError(error)) {
          failures++;
          if (failures >= threshold) openUntil = Date.now() + cooldownMs;
        }
        throw error;
      }
    },
  };
  return policy as unknown as HostPolicy;
}
