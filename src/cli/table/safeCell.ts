// C0/C1 controls, DEL and line/paragraph separators: anything that could
// move the cursor or break a row.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * A string made safe to print in one table cell: control characters (which
 * could drive the terminal or break the row) are shown as `\uXXXX` escapes.
 *
 * @example
 * safeCell('eu-1');      // 'eu-1'
 * safeCell('a\u001b[2J'); // 'a\\u001b[2J'
 *
 * @param text Text from a worker record.
 * @returns The text without control characters.
 */
export function safeCell(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
