import type { Answer } from 'dns-packet';
import type { ResponsePacket } from 'multicast-dns';
import { Observable } from 'rxjs';
import { decodeTxt } from '../../codec/decodeTxt.js';
import type { DiscoveryDiagnostic } from '../../discovery/types.js';
import { WorkerLedger } from '../../discovery/WorkerLedger.js';
import { WorkerDecodeError } from '../../errors/WorkerDecodeError.js';
import { discoveryEvent } from '../../events/discoveryEvent.js';
import type { DiscoveryEvent } from '../../events/types.js';
import type { WorkerInfo } from '../../model/types.js';
import { decodeTxtEntries } from './decodeTxtEntries.js';
import { openMdns } from './openMdns.js';
import { recordTtl } from './recordTtl.js';

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
  /** Called once per subscription, when the initial state is complete (see {@link browseWorkers}). */
  readonly synced: () => void;
}

interface Instance {
  /** A live PTR from the service type points at it: without one it is never a worker. */
  ptr: boolean;
  srv: { port: number; target: string } | undefined;
  txt: unknown;
  /** The malformed record last reported, so a re-announcement does not repeat the report. */
  reported: string | undefined;
  lastSeen: number;
  lastResolve: number;
}

interface Host {
  ipv4: string[];
  ipv6: string[];
}

/** A missing SRV/TXT/address is asked for at most this often per name. */
const RESOLVE_BACKOFF_MS = 250;
/** Distinct socket warnings reported per subscription, at most. */
const MAX_WARNINGS = 100;
/** The second query goes out this soon, in case the first was lost. */
const SECOND_QUERY_MS = 1000;

function lower(name: string): string {
  return name.toLowerCase();
}

function summary(value: unknown): string {
  if (Array.isArray(value)) {
    return value.map((item) => (item instanceof Uint8Array ? Buffer.from(item).toString('utf8') : String(item))).join(' ');
  }
  return String(value);
}

/**
 * Browses one DNS-SD service type over mDNS and emits *sightings*: a
 * `worker-added` each time a worker's complete set of records (live PTR,
 * SRV, TXT, an address) is seen in a response, and a `worker-dropped` on a
 * goodbye of a worker it emitted. Meant to be piped through
 * {@link expireWorkers}, which turns sightings into added/updated/dropped
 * and expires workers no longer seen.
 *
 * It queries the PTR at once, again after 1 s, then every
 * `requeryInterval`; asks for the SRV/TXT of an instance whose PTR arrived
 * alone and for the address of a target it has none for. A worker needs a
 * live PTR: records arriving after a goodbye (a late answer to a resolve)
 * never bring it back. IPv4 is preferred; a worker with only AAAA records is
 * `[v6]:port`. A record that does not decode is skipped and reported (once
 * per distinct content); if the worker was known it is dropped.
 *
 * The initial state is complete (`config.synced()`) `syncWindow` ms after
 * the first query is on the wire, or, if a worker that answered is still
 * being resolved then (its SRV/TXT/address asked for), as soon as none is,
 * at the latest one more `syncWindow` later. A socket
 * failure errors the stream with a {@link LanSocketError}; unsubscribing
 * closes the socket and every timer.
 *
 * @param config What to browse and how.
 * @returns A cold Observable of sightings.
 */
export function browseWorkers(config: BrowseConfig): Observable<DiscoveryEvent> {
  const serviceType = lower(config.serviceType.replace(/\.$/, ''));
  const suffix = `.${serviceType}`;
  return new Observable<DiscoveryEvent>((subscriber) => {
    const instances = new Map<string, Instance>();
    /** The workers sighted and not dropped since, by uid (the instance label). */
    const emitted = new WorkerLedger();
    const hosts = new Map<string, Host>();
    const lastHostQuery = new Map<string, number>();
    let stopped = false;
    const timers = new Set<ReturnType<typeof setTimeout>>();
    /** waiting: the first query window is open; closing: it has passed, a worker is still being resolved. */
    let sync: 'waiting' | 'closing' | 'done' = 'waiting';
    const warned = new Set<string>();

    const socket = openMdns(config.namespace, config, {
      fatal: (error) => {
        if (!stopped) subscriber.error(error);
      },
      warning: (message, error) => {
        // Each distinct warning once per subscription (a peer sending garbage must not flood diagnostics).
        if (warned.has(message) || warned.size >= MAX_WARNINGS) return;
        warned.add(message);
        config.report({ kind: 'warning', namespace: config.namespace, message, error });
      },
    });

    const send = (questions: { name: string; type: 'PTR' | 'SRV' | 'TXT' | 'A' | 'AAAA' }[]): void => {
      if (stopped) return;
      // A failure is also reported to `fatal`, which errors the stream.
      socket.query({ questions }).catch(() => undefined);
    };
    const queryPtr = (): void => send([{ name: serviceType, type: 'PTR' }]);

    const labelOf = (key: string): string => key.slice(0, -suffix.length);
    const drop = (key: string): void => {
      instances.delete(key);
      const dropped = emitted.drop(labelOf(key));
      if (dropped !== undefined) subscriber.next(dropped);
    };

    const evaluate = (key: string, instance: Instance, now: number): void => {
      if (!instance.ptr) return;
      if (instance.srv === undefined || instance.txt === undefined) {
        if (now - instance.lastResolve >= RESOLVE_BACKOFF_MS) {
          instance.lastResolve = now;
          send([
            { name: key, type: 'SRV' },
            { name: key, type: 'TXT' },
          ]);
        }
        return;
      }
      const target = lower(instance.srv.target);
      const host = hosts.get(target);
      const ip = host?.ipv4[0] ?? host?.ipv6[0];
      if (ip === undefined) {
        if (now - (lastHostQuery.get(target) ?? -Infinity) >= RESOLVE_BACKOFF_MS) {
          lastHostQuery.set(target, now);
          send([
            { name: instance.srv.target, type: 'A' },
            { name: instance.srv.target, type: 'AAAA' },
          ]);
        }
        return;
      }
      const label = labelOf(key);
      const address = ip.includes(':') ? `[${ip}]:${instance.srv.port}` : `${ip}:${instance.srv.port}`;
      let worker: WorkerInfo;
      try {
        worker = decodeTxt(decodeTxtEntries(instance.txt), { uid: label, address });
      } catch (caught) {
        // decodeTxt only throws WorkerDecodeError; anything else is wrapped, never thrown from a socket callback.
        const error = caught instanceof WorkerDecodeError ? caught : new WorkerDecodeError(String(caught), { cause: caught });
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
        const dropped = emitted.drop(label);
        if (dropped !== undefined) subscriber.next(dropped);
        return;
      }
      instance.reported = undefined;
      // Every sighting is emitted (it renews the worker's lease downstream), changed or not.
      emitted.put(worker);
      subscriber.next(discoveryEvent('worker-added', worker));
    };

    const handleResponse = (packet: ResponsePacket): void => {
      if (stopped) return;
      const now = Date.now();
      const records: Answer[] = [...(packet.answers ?? []), ...(packet.additionals ?? [])];
      const touched = new Set<string>();
      const goodbyes = new Set<string>();
      const instanceOf = (name: string): Instance | undefined => {
        const key = lower(name);
        if (!key.endsWith(suffix) || key.length === suffix.length) return undefined;
        let instance = instances.get(key);
        if (instance === undefined) {
          instance = { ptr: false, srv: undefined, txt: undefined, reported: undefined, lastSeen: now, lastResolve: -Infinity };
          instances.set(key, instance);
        }
        return instance;
      };
      // Address records first: a flush replaces the host's set with this packet's.
      const flushed = new Set<string>();
      const touchedHosts = new Set<string>();
      for (const record of records) {
        if (record.type !== 'A' && record.type !== 'AAAA') continue;
        const name = lower(record.name);
        let host = hosts.get(name);
        if (host === undefined) {
          host = { ipv4: [], ipv6: [] };
          hosts.set(name, host);
        }
        const list = record.type === 'A' ? host.ipv4 : host.ipv6;
        const flushKey = `${name} ${record.type}`;
        if (record.flush === true && !flushed.has(flushKey) && recordTtl(record) > 0) {
          flushed.add(flushKey);
          list.length = 0;
        }
        const at = list.indexOf(record.data);
        if (recordTtl(record) === 0) {
          if (at >= 0) list.splice(at, 1);
        } else if (at < 0) {
          list.push(record.data);
        }
        touchedHosts.add(name);
      }
      for (const record of records) {
        const ttl = recordTtl(record);
        if (record.type === 'PTR' && lower(record.name) === serviceType) {
          const instance = instanceOf(record.data);
          if (instance === undefined) continue;
          const key = lower(record.data);
          if (ttl === 0) {
            instance.ptr = false;
            goodbyes.add(key);
          } else {
            instance.ptr = true;
            touched.add(key);
          }
        } else if (record.type === 'SRV' || record.type === 'TXT') {
          const key = lower(record.name);
          if (!key.endsWith(suffix)) continue;
          const instance = instanceOf(record.name);
          if (instance === undefined) continue;
          if (ttl === 0) {
            if (record.type === 'SRV') instance.srv = undefined;
            else instance.txt = undefined;
            if (emitted.has(labelOf(key))) goodbyes.add(key);
          } else if (record.type === 'SRV') {
            instance.srv = { port: record.data.port, target: record.data.target };
            touched.add(key);
          } else {
            instance.txt = record.data;
            touched.add(key);
          }
        }
      }
      if (touchedHosts.size > 0) {
        for (const [key, instance] of instances) {
          if (instance.srv !== undefined && touchedHosts.has(lower(instance.srv.target))) touched.add(key);
        }
      }
      for (const key of goodbyes) {
        if (!instances.has(key)) continue;
        touched.delete(key);
        drop(key);
      }
      for (const key of touched) {
        const instance = instances.get(key);
        if (instance === undefined) continue;
        instance.lastSeen = now;
        evaluate(key, instance, now);
        if (stopped) return;
      }
    };

    // A worker that answered (live PTR) but is not emitted yet, and not malformed: still being resolved.
    const resolving = (): boolean => {
      for (const [key, instance] of instances) {
        if (instance.ptr && instance.reported === undefined && !emitted.has(labelOf(key))) return true;
      }
      return false;
    };
    const trySync = (force: boolean): void => {
      if (sync !== 'closing' || (!force && resolving())) return;
      sync = 'done';
      config.synced();
    };

    const schedule = (delay: number, run: () => void): void => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopped) run();
      }, delay);
      timers.add(timer);
    };
    const requery = (): void => {
      const now = Date.now();
      // Forget what has not been seen for expireAfter (expireWorkers has dropped it by now).
      for (const [key, instance] of instances) {
        if (now - instance.lastSeen > config.expireAfter) {
          instances.delete(key);
          emitted.drop(labelOf(key));
        }
      }
      const targets = new Set<string>();
      for (const instance of instances.values()) if (instance.srv !== undefined) targets.add(lower(instance.srv.target));
      for (const name of hosts.keys()) if (!targets.has(name)) hosts.delete(name);
      for (const name of lastHostQuery.keys()) if (!targets.has(name)) lastHostQuery.delete(name);
      queryPtr();
      schedule(config.requeryInterval, requery);
    };

    // Runs in a socket callback: whatever a packet holds, nothing may escape as an uncaught exception.
    const onResponse = (packet: ResponsePacket): void => {
      try {
        handleResponse(packet);
        trySync(false);
      } catch (error) {
        config.report({ kind: 'warning', namespace: config.namespace, message: `Skipped an mDNS response: ${String(error)}`, error });
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
  });
}
