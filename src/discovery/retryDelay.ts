/**
 * The delay before retry number `attempt` (0 for the first retry): doubles
 * from `first` up to `max`, the one backoff every backend retries with.
 * @internal
 * @param attempt How many retries came before this one (0, 1, 2, ...).
 * @param first The first delay, in ms.
 * @param max The longest delay, in ms.
 * @returns The delay in ms.
 */
export function retryDelay(attempt: number, first: number, max: number): number {
  return Math.min(max, first * 2 ** Math.min(attempt, 30));
}
