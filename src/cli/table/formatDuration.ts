/**
 * A short, human duration: `0s`…`59s`, `1m05s`…`59m59s`, then `1h02m`.
 * Negative durations count as zero.
 *
 * @example
 * formatDuration(65_000); // '1m05s'
 *
 * @param ms The duration in milliseconds.
 * @returns The text.
 */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
