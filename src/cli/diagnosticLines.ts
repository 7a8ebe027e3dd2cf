import type { DiscoveryDiagnostic } from '../discovery/types.js';

/** How often the same kind of warning is repeated (the first one is shown at once). */
const REPEAT_MS = 30_000;

/** What a command does with the state of its backend: a header line (table, dashboard banner). */
export interface DiagnosticSink {
  /** One line for the log (stderr, or under the live table). */
  readonly line: (text: string) => void;
  /** The backend's state where the user looks, or `undefined` once it is fine again. */
  readonly status?: (text: string | undefined) => void;
}

function etcdEndpoints(error: unknown): readonly string[] | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, endpoints } = error as { code?: unknown; endpoints?: unknown };
  if (code !== 'WOOLRX_ETCD_UNAVAILABLE' || !Array.isArray(endpoints)) return undefined;
  return endpoints.filter((endpoint): endpoint is string => typeof endpoint === 'string');
}

/**
 * Turns a backend's diagnostics into what a `woolrx` command shows: an
 * unreachable etcd as `etcd unreachable at URL, retrying; start etcd or pass
 * --endpoints URL` (as the status, and in the log), and every repeating
 * warning at most once per 30 s with the count of those held back — a
 * retry loop cannot flood the terminal. A `recovered` diagnostic clears the
 * status and is always shown.
 *
 * @example
 * const onDiagnostic = diagnosticLines({ line: (text) => stderr.write(`woolrx watch: ${text}\n`) });
 * discovery.diagnostics.subscribe(onDiagnostic);
 *
 * @param sink Where lines and the status go.
 * @param now The clock (for tests).
 * @returns The handler of one diagnostic.
 */
export function diagnosticLines(
  sink: DiagnosticSink,
  now: () => number = Date.now,
): (diagnostic: DiscoveryDiagnostic) => void {
  const last = new Map<string, { at: number; held: number }>();
  return (diagnostic) => {
    if (diagnostic.kind === 'recovered') {
      last.clear();
      sink.status?.(undefined);
      sink.line(`recovered: ${diagnostic.message}`);
      return;
    }
    const endpoints = etcdEndpoints(diagnostic.error);
    const uid = diagnostic.uid === undefined ? '' : ` (worker ${diagnostic.uid})`;
    const text =
      endpoints === undefined
        ? `${diagnostic.kind}${uid}: ${diagnostic.message}`
        : `etcd unreachable at ${endpoints.join(', ')}, retrying; start etcd or pass --endpoints URL`;
    if (endpoints !== undefined) sink.status?.(text);
    if (diagnostic.kind === 'malformed-record') {
      sink.line(text);
      return;
    }
    // Warnings of one kind differ only in figures (delays, counts): one key.
    const key = endpoints === undefined ? text.replace(/\d+/g, '#') : 'etcd-unavailable';
    const seen = last.get(key);
    const at = now();
    if (seen !== undefined && at - seen.at < REPEAT_MS) {
      seen.held += 1;
      return;
    }
    const held =
      seen === undefined || seen.held === 0
        ? ''
        : ` (${seen.held} more like it in the last ${Math.round((at - seen.at) / 1000)} s)`;
    last.set(key, { at, held: 0 });
    sink.line(`${text}${held}`);
  };
}
