import { errorMessage } from '../discovery/errorMessage.js';

/**
 * A runtime error as `woolrx` prints it: the problem and, for the errors a
 * newcomer meets, the fix in command-line terms — a record larger than its
 * block (`--block-size`), a full namespace (`--capacity`), a namespace owned
 * by another user (pick another namespace), an unreachable etcd (start it, or
 * `--endpoints`), a busy lock (`--lock-timeout`). Other errors keep their
 * message.
 *
 * @param error What the command failed with.
 * @param namespace The namespace the command was given.
 * @returns One line, without the `woolrx <command>: ` prefix.
 */
export function cliErrorMessage(error: unknown, namespace: string): string {
  const fields = (error !== null && typeof error === 'object' ? error : {}) as Record<string, unknown>;
  const ns = JSON.stringify(namespace);
  switch (fields['code']) {
    case 'WOOLRX_BLOCK_EXHAUSTED':
      return (
        `the worker's metadata needs ${String(fields['size'])} bytes ` +
        `but a block of namespace ${ns} holds ${String(fields['blockSize'])}: ` +
        'shorten --tag/--extra, or pass a larger --block-size'
      );
    case 'WOOLRX_CAPACITY_EXHAUSTED':
      return (
        `namespace ${ns} is full (${String(fields['capacity'])} workers): stop a worker, ` +
        'or use a new namespace with a larger --capacity (an existing namespace keeps its capacity)'
      );
    case 'WOOLRX_UNSAFE_OBJECT': {
      const owner = fields['owner'];
      const euid = process.geteuid?.();
      if (typeof owner === 'number' && owner >= 0 && euid !== undefined && owner !== euid) {
        return (
          `namespace ${ns} belongs to uid ${owner} (${String(fields['path'])}); ` +
          `pick another namespace, or run as uid ${owner}`
        );
      }
      return `${errorMessage(error)}; remove it once no process uses namespace ${ns}, or pick another namespace`;
    }
    case 'WOOLRX_ETCD_UNAVAILABLE': {
      // "etcd is unreachable at URL: <cause>", then the fix.
      return `${errorMessage(error).replace(/\s*\n\s*/g, ' ')}; start etcd, or pass --endpoints URL`;
    }
    case 'WOOLRX_LOCK_TIMEOUT':
      return (
        `${errorMessage(error)}: another process holds namespace ${ns}'s lock; ` +
        'find it, or pass a larger --lock-timeout'
      );
    default:
      return errorMessage(error);
  }
}
