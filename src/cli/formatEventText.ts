import type { DiscoveryEvent } from '../events/types.js';
import { DEFAULT_CHANNEL_OPTIONS } from '../model/DEFAULT_CHANNEL_OPTIONS.js';

const MARKERS = { 'worker-added': '+', 'worker-updated': '~', 'worker-dropped': '-' } as const;
// Anything that would make a field ambiguous or drive the terminal.
// eslint-disable-next-line no-control-regex
const NEEDS_QUOTES = /[\s,="\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A field as typed, or JSON-quoted (C0/C1 controls escaped) when it needs it. */
function field(text: string): string {
  if (text.length > 0 && !NEEDS_QUOTES.test(text)) return text;
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Renders an event as one readable, column-aligned line (without the
 * newline): local time, `+` added / `~` updated / `-` dropped, the first 8
 * characters of the uid, address, pid, version, tags, extra, and `secure`
 * or changed channel options when there are any, and for a drop its reason
 * in parentheses when the backend knows it. Strings that contain
 * spaces, separators or control characters are JSON-quoted, so a record
 * cannot forge columns or drive the terminal.
 *
 * @example
 * formatEventText(discoveryEvent('worker-added', worker), new Date());
 * // '12:03:04.005 + 6f1d2b1c 127.0.0.1:50051          4242 0.13.1     gpu  zone=eu-1'
 *
 * @param now The time to show.
 * @returns One line of text.
 */
export function formatEventText(event: DiscoveryEvent, now: Date): string {
  const { worker } = event;
  const time =
    `${pad2(now.getHours())}:${pad2(now.getMinutes())}:${pad2(now.getSeconds())}.` +
    String(now.getMilliseconds()).padStart(3, '0');
  const tags = worker.tags.length === 0 ? '-' : worker.tags.map(field).join(',');
  const extraEntries = Object.entries(worker.extra);
  const extra = extraEntries.length === 0 ? '-' : extraEntries.map(([k, v]) => `${field(k)}=${field(v)}`).join(',');
  const flags: string[] = [];
  if (worker.secure) flags.push('secure');
  for (const [key, value] of Object.entries(worker.options)) {
    if (value !== (DEFAULT_CHANNEL_OPTIONS as unknown as Record<string, unknown>)[key]) {
      flags.push(`${key}=${String(value)}`);
    }
  }
  const columns = [
    time,
    MARKERS[event.type],
    worker.uid.slice(0, 8),
    field(worker.address).padEnd(24),
    String(worker.pid).padStart(7),
    field(worker.version).padEnd(10),
    tags.padEnd(12),
    extra,
  ];
  if (flags.length > 0) columns.push(flags.join(' '));
  if (event.reason !== undefined) columns.push(`(${event.reason})`);
  return columns.join(' ');
}
