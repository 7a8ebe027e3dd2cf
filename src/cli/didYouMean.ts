/** The edit distance (insertions, deletions, substitutions, adjacent swaps) between two words. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The known word closest to a mistyped one, within two edits (a swap of two
 * neighbours counts as one) — `wacth` → `watch`, `bakend` → `backend` — or
 * `undefined` when none is that close (or the word is too short to guess).
 * The first of equally close candidates wins.
 *
 * @example
 * didYouMean('wacth', ['demo', 'list', 'watch']); // 'watch'
 *
 * @param word What was typed.
 * @param candidates The known words, in the order to prefer.
 * @returns The suggestion.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, word.length - 1);
  for (const candidate of candidates) {
    const d = distance(word, candidate);
    if (d <= bestDistance && (best === undefined || d < distance(word, best))) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
