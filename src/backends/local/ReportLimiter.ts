/** How long the same problem stays quiet after it was reported, in ms. */
export const REPORT_INTERVAL = 60_000;

/**
 * Rate-limits a subscriber's reports of a lasting problem (a segment
 * without its header, an unsafe object): a problem is reported once it was
 * seen `strikes` times in a row, then not again for {@link REPORT_INTERVAL}
 * ms while it lasts; a new problem (another key) is reported at once.
 * @internal
 */
export class ReportLimiter {
  #key: string | undefined;
  #seen = 0;
  #reportedAt = -Infinity;

  /**
   * Notes a problem seen now.
   * @param key What the problem is (e.g. `segment:no-magic`).
   * @param strikes How many sightings in a row before reporting (2: not for an instant's state).
   * @param now `performance.now()`.
   * @returns Whether to report it now.
   */
  seen(key: string, strikes = 1, now = performance.now()): boolean {
    if (key !== this.#key) {
      this.#key = key;
      this.#seen = 0;
      this.#reportedAt = -Infinity;
    }
    this.#seen += 1;
    if (this.#seen < strikes || now - this.#reportedAt < REPORT_INTERVAL) return false;
    this.#reportedAt = now;
    return true;
  }

  /** The problem is gone: the next one is reported afresh. */
  clear(): void {
    this.#key = undefined;
    this.#seen = 0;
    this.#reportedAt = -Infinity;
  }
}
