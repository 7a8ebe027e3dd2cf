import type { IOptions } from 'etcd3';
import { EtcdUnavailableError } from './EtcdUnavailableError.js';
import { loadEtcd3 } from './loadEtcd3.js';

/** What etcd3 expects of `faultHandling.global`. */
type GlobalPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/**
 * Tries after the first, on a recoverable error: etcd3's default global policy (cockatiel's
 * `retry(handleWhen(isRecoverableError), { maxAttempts: 3 })`, no delay).
 */
const RETRIES = 3;

/**
 * etcd3's global fault-handling policy, made to report what users can act
 * on: it retries a call that failed recoverably as etcd3's default does, and
 * a call that still fails recoverably (unreachable endpoints, timeouts, an
 * endpoint skipped by {@link hostBreaker}) rejects with an
 * {@link EtcdUnavailableError} naming the endpoints, with etcd3's error as
 * `cause`. The wrapper stays recoverable to etcd3 and to this backend's
 * retry logic; other errors (authentication, permissions, a failed compare)
 * pass through unchanged.
 * @param endpoints The configured endpoints, for messages.
 * @internal
 */
export function unavailableAsWoolrx(endpoints: readonly string[]): GlobalPolicy {
  const policy = {
    async execute<T>(fn: (context: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T): Promise<T> {
      const { RecoverableError, isRecoverableError } = loadEtcd3();
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await fn({ signal: new AbortController().signal, attempt });
        } catch (error) {
          if (!(error instanceof Error) || !isRecoverableError(error)) throw error;
          if (attempt < RETRIES) continue;
          const wrapped = error instanceof EtcdUnavailableError ? error : new EtcdUnavailableError(endpoints, error);
          if (!(RecoverableError in wrapped)) Object.defineProperty(wrapped, RecoverableError, { value: true });
          throw wrapped;
        }
      }
    },
  };
  return policy as unknown as GlobalPolicy;
}
