/**
 * Renders any value for an error message: strings quoted, everything else
 * as readable as it gets, never throwing and never longer than ~80 chars.
 * @internal
 */
export function describeValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (typeof value === 'bigint') text = `${value}n`;
  else if (typeof value === 'symbol' || typeof value === 'function') text = String(value);
  else if (value === undefined) text = 'undefined';
  else if (typeof value === 'number') text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? Object.prototype.toString.call(value);
    } catch {
      text = Object.prototype.toString.call(value);
    }
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
