import { getSystemErrorMap } from 'node:util';

/**
 * The error Node.js's own `fs` functions throw for a failed system call,
 * for one made through woolrx's addon: `code` (`'EBADF'`, ...), a negative
 * `errno` and `syscall`, so that callers catch both alike.
 * @param errno The (positive) errno.
 * @param syscall The system call, as Node.js names it (`'read'`, `'flock'`).
 * @param call What was called, for the message (default: the system call).
 * @returns The error, to throw.
 * @internal
 */
export function errnoError(errno: number, syscall: string, call: string = syscall): NodeJS.ErrnoException {
  const [code, description] = getSystemErrorMap().get(-errno) ?? [`errno ${errno}`, 'unknown error'];
  const error = new Error(`${code}: ${description}, ${call}`) as NodeJS.ErrnoException;
  error.code = code;
  error.errno = -errno;
  error.syscall = syscall;
  return error;
}
