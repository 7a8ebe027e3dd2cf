/**
 * Types of proper-lockfile's core module (`lib/lockfile.js`), the callback
 * API its `lock`/`lockSync` wrap; used directly by acquireNamespaceLock.
 * @internal
 */
declare module 'proper-lockfile/lib/lockfile.js' {
  export function lock(
    file: string,
    options: Record<string, unknown>,
    callback: (error: unknown, release?: (callback: (error: unknown) => void) => void) => void,
  ): void;
}
