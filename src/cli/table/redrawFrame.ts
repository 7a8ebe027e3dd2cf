/**
 * The bytes that replace the previous frame on a terminal with the next:
 * the cursor goes back up to the first line of the previous frame
 * (`ESC [ n F`), the screen is cleared from there down (`ESC [ J`), and the
 * new lines are written, each followed by a newline. The lines must fit
 * the terminal width (see {@link renderTable}), or wrapped lines would
 * throw the count off. Pure.
 *
 * @example
 * let previous = 0;
 * const lines = renderTable(state, { width: stdout.columns, height: stdout.rows, now: Date.now() });
 * stdout.write(redrawFrame(previous, lines));
 * previous = lines.length;
 *
 * @param previousLines How many lines the previous frame wrote (0 for the first).
 * @param lines The new frame.
 * @returns The text to write.
 */
export function redrawFrame(previousLines: number, lines: readonly string[]): string {
  const up = previousLines > 0 ? `\u001b[${previousLines}F` : '\r';
  return `${up}\u001b[J${lines.map((line) => `${line}\n`).join('')}`;
}
