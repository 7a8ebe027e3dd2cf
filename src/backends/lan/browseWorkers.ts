import type { ResponsePacket } from 'multicast-dns';
import { decodeTxt } from '../../codec/decodeTxt.js';
import { encodeTxt } from '../../codec/encodeTxt.js';
import type { DiscoverySink } from '../../discovery/DiscoverySink.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import type { DropReason } from '../../events/types.js';
import { WorkerLedger } from '../../events/WorkerLedger.js';
import { WorkerDecodeError } from '../../errors/WorkerDecodeError.js';
import { discoveryEvent } from '../../events/discoveryEvent.js';
import type { WorkerInfo } from '../../model/types.js';
import { decodeTxtEntries } from './decodeTxtEntries.js';
import { FRESHNESS_MS, SIGNATURE_TXT_KEY, verifyRecord, type LanKey } from './lanSigning.js';
import { openMdns } from './openMdns.js';
import { ServiceCache, type CachedInstance } from './ServiceCache.js';

/** Settings of {@link browseWorkers}. */
export interface BrowseConfig {
  readonly namespace: string;
  /** The service type, with or without the trailing dot. */
  readonly serviceType: string;
  /** Re-query period, ms. */
  readonly requeryInterval: number;
  /** Cache entries unseen this long are forgotten, ms. */
  readonly expireAfter: number;
  readonly interface: string | undefined;
  readonly port: number | undefined;
  /** Where malformed records and warnings go. */
  readonly report: (diagnostic: DiscoveryDiagnostic) => void;
  /** How long after the first query is on the wire the initial state counts as complete, ms. */
  readonly syncWindow: number;
  /** With keys: only records signed with one of them, fresh and not rolled back, are workers. */
  readonly keys?: readonly LanKey[] | undefined;
}

/** Distinct socket warnings reported per subscription, at most. */
const MAX_WARNINGS = 100;
/** The second query goes out this soon, in case the first was lost. */
const SECOND_QUERY_MS = 1000;
/** After an undecodable packet, the extra PTR query goes out this soon, ms (the rest of a burst arrives meanwhile). */
const LOSS_QUERY_DELAY_MS = 250;
/** Extra PTR queries for undecodable packets are at least this far apart, ms. */
const LOSS_QUERY_SPACING_MS = 1000;
/**
 * `unauthenticated-record` diagnostics per subscription and minute, at most (a flood of forged records must not
 * flood diagnostics).
 */
const MAX_UNAUTHENTICATED_PER_MINUTE = 20;

const REASONS: Readonly<Record<string, string>> = {
  unsigned: 'not signed',
  'malformed signature': `its ${SIGNATURE_TXT_KEY} entry is malformed`,
  'unknown key': 'signed with a key this subscriber does not hold',
  'bad signature': 'its signature does not verify (forged, altered, or signed for another namespace or address)',
};

function formatAddress(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The value of a TXT key, looked up case-insensitively. */
function entryOf(entries: Record<string, Uint8Array | true>, key: string): Uint8Array | true | undefined {
  for (const [name, value] of Object.entries(entries)) if (name.toLowerCase() === key) return value;
  return undefined;
}

function summary(value: unknown): string {
  if (Array.isArray(value)) {
    return value
      .map((item) => (item instanceof Uint8Array ? Buffer.from(item).toString('utf8') : String(item)))
      .join(' ');
  }
  return String(value);
}

/**
 * Browses one DNS-SD service type over mDNS and reports *sightings* to
 * `sink`: a `worker-added` each time a worker's complete set of records
 * (live PTR, SRV, TXT, an address) is seen in a response, and a
 * `worker-dropped` on a goodbye of a worker it reported. Meant to feed
 * {@link expireWorkers}, which turns sightings into added/updated/dropped
 * and expires workers no longer seen.
 *
 * It queries the PTR at once, again after 1 s, then every
 * `requeryInterval`; asks for the SRV/TXT of an instance whose PTR arrived
 * alone and for the address of a target it has none for. A worker needs a
 * live PTR: records arriving after a goodbye (a late answer to a resolve)
 * never bring it back. IPv4 is preferred; a worker with only AAAA records is
 * `[v6]:port` (the records seen are kept in a {@link ServiceCache}). A
 * record that does not decode is skipped and reported (once
 * per distinct content); if the worker was known it is dropped.
 * A packet that does not decode as DNS is reported as a warning (each
 * distinct message once) and, since a record sent meanwhile may have been
 * lost with it, the PTR is queried again 250 ms later (at most once a
 * second, whatever the number of such packets).
 *
 * The initial state is complete (`sink.synced()`) `syncWindow` ms after
 * the first query is on the wire, or, if a worker that answered is still
 * being resolved then (its SRV/TXT/address asked for), as soon as none is,
 * at the latest one more `syncWindow` later. A socket failure is reported
 * as `sink.error(`{@link LanSocketError}`)`; the returned teardown closes
 * the socket and every timer.
 *
 * @param config What to browse and how.
 * @param sink Where sightings, the end of the initial state and a failure go.
 * @returns What stops browsing.
 */
export function browseWorkers(config: BrowseConfig, sink: DiscoverySink): () => void {
  const cache = new ServiceCache(config.serviceType);
  const { serviceType } = cache;
  /** The workers sighted and not dropped since, by uid (the instance label). */
  const emitted = new WorkerLedger();
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** waiting: the first query window is open; closing: it has passed, a worker is still being resolved. */
  let sync: 'waiting' | 'closing' | 'done' = 'waiting';
  const warned = new Set<string>();
  /** With keys: the newest signing time accepted per uid (kept for the subscription's life: rollback protection). */
  const newest = new Map<string, number>();
  let unauthenticatedBudget = { since: 0, left: 0 };
  /** An extra PTR query for undecodable packets is scheduled; when the last one went out. */
  let lossQueryPending = false;
  let lastLossQuery = Number.NEGATIVE_INFINITY;

  const schedule = (delay: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, delay);
    timers.add(timer);
  };

  const socket = openMdns(config.namespace, config, {
    fatal: (error) => {
      if (!stopped) sink.error(error);
    },
    warning: (message, error) => {
      // Each distinct warning once per subscription (a peer sending garbage must not flood diagnostics).
      if (warned.has(message) || warned.size >= MAX_WARNINGS) return;
      warned.add(message);
      config.report({ kind: 'warning', namespace: config.namespace, message, error });
    },
    undecodable: () => {
      // A record may have been lost with it: ask again soon, at most once per LOSS_QUERY_SPACING_MS.
      if (stopped || lossQueryPending) return;
      lossQueryPending = true;
      schedule(Math.max(LOSS_QUERY_DELAY_MS, lastLossQuery + LOSS_QUERY_SPACING_MS - Date.now()), () => {
        lossQueryPending = false;
        lastLossQuery = Date.now();
        queryPtr();
      });
    },
  });

  const send = (questions: { name: string; type: 'PTR' | 'SRV' | 'TXT' | 'A' | 'AAAA' }[]): void => {
    if (stopped) return;
    // A failure is also reported to `fatal`, which errors the stream.
    socket.query({ questions }).catch(() => undefined);
  };
  const queryPtr = (): void => send([{ name: serviceType, type: 'PTR' }]);

  const dropWorker = (label: string, reason: DropReason): void => {
    const dropped = emitted.drop(label, reason);
    if (dropped !== undefined) sink.next(dropped);
  };

  /**
   * Emits the instance's worker when its records are complete, asks for what is missing, reports what does not
   * decode.
   */
  const evaluate = (key: string, instance: CachedInstance, now: number): void => {
    if (!instance.ptr) return;
    if (instance.srv === undefined || instance.txt === undefined) {
      if (cache.mayAsk(key, now)) {
        send([
          { name: key, type: 'SRV' },
          { name: key, type: 'TXT' },
        ]);
      }
      return;
    }
    const ip = cache.addressOf(instance.srv.target);
    if (ip === undefined) {
      if (cache.mayAsk(instance.srv.target, now)) {
        send([
          { name: instance.srv.target, type: 'A' },
          { name: instance.srv.target, type: 'AAAA' },
        ]);
      }
      return;
    }
    const label = cache.labelOf(key);
    const address = formatAddress(ip, instance.srv.port);
    let worker: WorkerInfo;
    let entries: Record<string, Uint8Array | true>;
    try {
      entries = decodeTxtEntries(instance.txt);
      worker = decodeTxt(entries, { uid: label, address });
    } catch (caught) {
      // decodeTxt only throws WorkerDecodeError; anything else is wrapped, never thrown from a socket callback.
      const error =
        caught instanceof WorkerDecodeError ? caught : new WorkerDecodeError(String(caught), { cause: caught });
      const content = `${address} ${summary(instance.txt)}`;
      if (instance.reported !== content) {
        instance.reported = content;
        config.report({
          kind: 'malformed-record',
          namespace: config.namespace,
          message: `Skipped mDNS record of ${key}: ${error.message}`,
          uid: label,
          error,
        });
      }
      dropWorker(label, 'malformed');
      return;
    }
    if (config.keys !== undefined) {
      const authentic = authenticate(
        key,
        instance,
        worker,
        entries,
        cache.addressesOf(instance.srv.target),
        instance.srv.port,
        now,
      );
      if (authentic === undefined) return;
      worker = authentic;
    }
    instance.reported = undefined;
    // Every sighting is emitted (it renews the worker's lease downstream), changed or not.
    emitted.put(worker);
    sink.next(discoveryEvent('worker-added', worker));
  };

  /**
   * The worker if its record is signed with one of the keys for this
   * namespace, uid, an address of its target and these TXT values, and is
   * not older than the newest version seen (rollback) nor, when newer, out
   * of the freshness window (a replay of a record never seen). Otherwise
   * skips it (a worker already listed stays, until a goodbye or expiry) and
   * reports it, rate-limited.
   */
  const authenticate = (
    key: string,
    instance: CachedInstance,
    worker: WorkerInfo,
    entries: Record<string, Uint8Array | true>,
    ips: readonly string[],
    port: number,
    now: number,
  ): WorkerInfo | undefined => {
    const keys = config.keys ?? [];
    const label = cache.labelOf(key);
    const entry = entryOf(entries, SIGNATURE_TXT_KEY);
    const txt = encodeTxt(worker);
    let why = 'not signed';
    for (const ip of ips) {
      const address = formatAddress(ip, port);
      const verdict = verifyRecord(keys, entry, { namespace: config.namespace, uid: label, address, txt });
      if (!verdict.ok) {
        why = REASONS[verdict.reason] ?? verdict.reason;
        if (verdict.reason === 'bad signature') continue; // another address of the target may be the signed one
        break;
      }
      const seen = newest.get(label);
      const signedAt = new Date(verdict.time).toISOString();
      if (seen !== undefined && verdict.time < seen) {
        why =
          `rolled back: signed at ${signedAt}, ` +
          `older than the version already seen (${new Date(seen).toISOString()})`;
        break;
      }
      if (seen === undefined || verdict.time > seen) {
        if (Math.abs(now - verdict.time) > FRESHNESS_MS) {
          why =
            `stale: signed at ${signedAt}, more than ${FRESHNESS_MS / 1000} s from this host's clock ` +
            '(a replay, or clocks apart)';
          break;
        }
        newest.set(label, verdict.time);
      }
      return address === worker.address ? worker : decodeTxt(entries, { uid: label, address });
    }
    const content = `unauthenticated ${why} ${summary(instance.txt)}`;
    if (instance.reported !== content) {
      instance.reported = content;
      if (now - unauthenticatedBudget.since >= 60_000)
        unauthenticatedBudget = { since: now, left: MAX_UNAUTHENTICATED_PER_MINUTE };
      if (unauthenticatedBudget.left > 0) {
        unauthenticatedBudget.left -= 1;
        config.report({
          kind: 'unauthenticated-record',
          namespace: config.namespace,
          message: `Skipped mDNS record of ${key}: ${why}`,
          uid: label,
        });
      }
    }
    return undefined;
  };

  const handleResponse = (packet: ResponsePacket): void => {
    if (stopped) return;
    const now = Date.now();
    const { touched, goodbyes } = cache.apply([...(packet.answers ?? []), ...(packet.additionals ?? [])], now, (key) =>
      emitted.has(cache.labelOf(key)),
    );
    for (const key of goodbyes) {
      if (cache.get(key) === undefined) continue;
      cache.delete(key);
      dropWorker(cache.labelOf(key), 'withdrawn');
    }
    for (const key of touched) {
      const instance = cache.get(key);
      if (instance === undefined) continue;
      instance.lastSeen = now;
      evaluate(key, instance, now);
      if (stopped) return;
    }
  };

  // A worker that answered (live PTR) but is not emitted yet, and not malformed: still being resolved.
  const resolving = (): boolean => {
    for (const [key, instance] of cache.instances()) {
      if (instance.ptr && instance.reported === undefined && !emitted.has(cache.labelOf(key))) return true;
    }
    return false;
  };
  const trySync = (force: boolean): void => {
    if (sync !== 'closing' || (!force && resolving())) return;
    sync = 'done';
    sink.synced();
  };

  const requery = (): void => {
    // Forget what has not been seen for expireAfter (expireWorkers has dropped it by now).
    for (const key of cache.prune(Date.now(), config.expireAfter)) emitted.drop(cache.labelOf(key));
    queryPtr();
    schedule(config.requeryInterval, requery);
  };

  // Runs in a socket callback: whatever a packet holds, nothing may escape as an uncaught exception.
  const onResponse = (packet: ResponsePacket): void => {
    try {
      handleResponse(packet);
      trySync(false);
    } catch (error) {
      config.report({
        kind: 'warning',
        namespace: config.namespace,
        message: `Skipped an mDNS response: ${String(error)}`,
        error,
      });
    }
  };
  socket.mdns.on('response', onResponse);
  socket.ready.then(
    () => {
      if (stopped) return;
      socket.query({ questions: [{ name: serviceType, type: 'PTR' }] }).then(
        () => {
          if (stopped) return;
          schedule(config.syncWindow, () => {
            sync = 'closing';
            schedule(config.syncWindow, () => trySync(true));
            trySync(false);
          });
        },
        () => undefined, // reported to `fatal`
      );
      schedule(Math.min(SECOND_QUERY_MS, config.requeryInterval), () => {
        queryPtr();
        schedule(config.requeryInterval, requery);
      });
    },
    () => undefined, // reported to `fatal`
  );

  return () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    socket.mdns.removeListener('response', onResponse);
    void socket.close();
  };
}
