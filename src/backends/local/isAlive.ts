/**
 * Whether a process of this pid exists on this host (`kill(pid, 0)`;
 * `EPERM`, someone else's process, counts as alive).
 * @internal
 * @param pid A process id (> 0).
 * @returns `true` when it exists.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
