import type { Answer, RecordType } from 'dns-packet';
import type { MdnsSocket } from './openMdns.js';

/** Probes: 3 queries 250 ms apart after a random 0-250 ms wait (RFC 6762 §8.1). */
const PROBES = 3;
const PROBE_INTERVAL_MS = 250;

/** How a probe ends, as {@link probeName} reports it. @internal */
export interface ProbeOutcome {
  /** All probes went out and the probe was not cancelled: the name may be announced. */
  clear(): void;
  /** A probe could not be sent. */
  failed(error: unknown): void;
}

/**
 * Probes a name before it is announced (RFC 6762 §8.1): after a random
 * 0-250 ms wait, three `ANY` queries for it 250 ms apart, each carrying the
 * records the prober means to announce (`authorities`, read at each probe
 * so that a change while probing is what is defended). A conflict — anyone
 * answering for the name meanwhile — is the caller's to notice (it sees the
 * responses); it then cancels the probe.
 * @internal Used by {@link MdnsResponder}.
 * @param socket The socket to query on.
 * @param name The name to probe (an instance name).
 * @param authorities The records to probe with (SRV, TXT).
 * @param outcome Where the end of the probe is reported (at most one call, none after cancel).
 * @returns Cancels the probe.
 */
export function probeName(
  socket: MdnsSocket,
  name: string,
  authorities: () => Answer[],
  outcome: ProbeOutcome,
): () => void {
  let sent = 0;
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cancel = (): void => {
    done = true;
    clearTimeout(timer);
  };
  const step = (): void => {
    if (done) return;
    if (sent === PROBES) {
      cancel();
      outcome.clear();
      return;
    }
    sent++;
    socket
      .query({ questions: [{ name, type: 'ANY' as RecordType }], authorities: authorities() })
      .catch((error: unknown) => {
        if (done) return;
        cancel();
        outcome.failed(error);
      });
    timer = setTimeout(step, PROBE_INTERVAL_MS);
  };
  timer = setTimeout(step, Math.random() * PROBE_INTERVAL_MS);
  return cancel;
}
