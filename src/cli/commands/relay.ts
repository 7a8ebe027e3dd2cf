import { hostname } from 'node:os';
import { catchError, endWith, firstValueFrom, ignoreElements, of, takeUntil, tap } from 'rxjs';
import type { Discovery } from '../../discovery/types.js';
import type { WorkerInfo } from '../../model/types.js';
import { isLoopbackHost } from '../../model/isLoopbackHost.js';
import { isWildcardHost } from '../../model/isWildcardHost.js';
import { relayWorkers } from '../../relay/relayWorkers.js';
import type { RelayStatus, RelayStatusUpdate } from '../../relay/types.js';
import { aborted } from '../aborted.js';
import { cliErrorMessage } from '../cliErrorMessage.js';
import { diagnosticLines } from '../diagnosticLines.js';
import { flagValues } from '../flagValues.js';
import type { CliCommand, CliValues } from '../types.js';
import { UsageError } from '../UsageError.js';

/** Backends a worker relayed into is seen only on this host: addresses need no rewrite. */
const SAME_HOST_BACKENDS: ReadonlySet<string> = new Set(['local']);

function text(values: CliValues, flag: string): string | undefined {
  return flagValues.text(values, flag);
}

/** The checks that need no backend: exit 2 with one line naming the fix. */
function validate(values: CliValues): void {
  const from = text(values, 'from');
  const to = text(values, 'to');
  const namespace = text(values, 'namespace');
  const toNamespace = text(values, 'to-namespace') ?? namespace;
  if (from !== undefined && from === to && namespace === toNamespace) {
    throw new UsageError(
      `--from and --to are both ${from} namespace ${JSON.stringify(namespace)}: ` +
        'pass --to-namespace NS2, or another --to',
    );
  }
  if (from === 'local' && to === 'local') {
    throw new UsageError(
      "--from local --to local: one host's shared memory names a worker's block by its uid, " +
        'so a worker cannot be in two local namespaces at once; relay into etcd or lan',
    );
  }
  for (const [flag, name] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (name === 'etcd' && flagValues.list(values, 'endpoints').length === 0) {
      throw new UsageError(
        `--${flag} etcd needs --endpoints URL[,URL] (the etcd cluster's client URLs, e.g. http://10.0.0.5:2379)`,
      );
    }
  }
  const host = text(values, 'advertise-host');
  if (host !== undefined && (host === '' || isLoopbackHost(host) || isWildcardHost(host))) {
    throw new UsageError(
      `--advertise-host ${JSON.stringify(host)} is a ${isLoopbackHost(host) ? 'loopback' : 'wildcard'} host: ` +
        "pass this host's address on the network the target spans (e.g. --advertise-host 10.0.0.7)",
    );
  }
  if (flagValues.list(values, 'tag').some((tag) => tag === '')) throw new UsageError('--tag needs a non-empty tag');
}

function statusLine(status: RelayStatusUpdate, route: string): string {
  const state =
    status.target === 'up' ? (status.synced ? 'target up, synced' : 'target up, syncing') : 'target DOWN, retrying';
  const pending = status.pending === 0 ? '' : ` · ${status.pending} pending`;
  const counts = `relayed ${status.relayed} · skipped ${status.skipped}${pending}`;
  return `woolrx relay · ${route} · ${counts} · ${state} · Ctrl-C to stop`;
}

/**
 * `woolrx relay --from BACKEND --namespace NS --to BACKEND [...]`: copies
 * one backend's workers into another (a host's local wool workers into etcd,
 * or onto the LAN) until SIGINT, SIGTERM or SIGHUP, then withdraws what it
 * relayed and exits 0. On a terminal: one live status line, skipped workers
 * and errors above it; piped or with `--json`: every status item as one
 * NDJSON line.
 */
export const relay: CliCommand = {
  name: 'relay',
  summary: "Copy one backend's workers into another (local → etcd, local → lan, ...) until interrupted",
  synopsis:
    '--from local|lan|etcd --namespace NS --to etcd|lan|local [--to-namespace NS2] [--advertise-host IP] [options]',
  backendFlags: ['from', 'to'],
  flags: {
    from: {
      type: 'string',
      valueName: 'BACKEND',
      description: 'Backend to copy workers from: local, lan or etcd (required)',
    },
    to: {
      type: 'string',
      valueName: 'BACKEND',
      description: 'Backend to copy them into: etcd, lan or local (required)',
    },
    'to-namespace': { type: 'string', valueName: 'NS2', description: 'Namespace in the target (default: --namespace)' },
    'advertise-host': {
      type: 'string',
      valueName: 'HOST',
      description:
        "This host's address, replacing a loopback or wildcard host in relayed addresses " +
        '(without it such workers are skipped)',
    },
    tag: {
      type: 'string',
      multiple: true,
      valueName: 'TAG',
      description: 'Relay only workers having this tag (all of them, when repeated)',
    },
    'relay-id': {
      type: 'string',
      valueName: 'ID',
      description:
        'Name written in the relay mark of relayed workers, unique per relay ' +
        '(default: host name, --from, namespace, --advertise-host)',
    },
    json: {
      type: 'boolean',
      description: 'One JSON status object per line (NDJSON; the default when stdout is not a terminal)',
    },
  },
  validate,
  run: async (context) => {
    const { stdout, stderr, signal, values, namespace } = context;
    const from = text(values, 'from') as string;
    const to = text(values, 'to') as string;
    const toNamespace = text(values, 'to-namespace') ?? namespace;
    const advertiseHost = text(values, 'advertise-host');
    const tags = flagValues.list(values, 'tag');
    const id =
      text(values, 'relay-id') ??
      `${hostname()}:${from}/${namespace}${advertiseHost === undefined ? '' : `@${advertiseHost}`}`;
    // --advertise-host is the relay's: it rewrites addresses before the
    // target sees them, so a lan target must not also apply it to every worker.
    const backendValues: CliValues = { ...values, 'advertise-host': undefined };
    const source: Discovery = await context.discoveryOf(from, namespace, backendValues);
    const target: Discovery = await context.discoveryOf(to, toNamespace, backendValues);
    const route = `${from}/${namespace} → ${to}/${toNamespace}`;
    const json = values['json'] === true || (stdout as { isTTY?: boolean }).isTTY !== true;

    let live: string | undefined;
    const redraw = (): void => {
      if (live !== undefined) stdout.write(`\r\x1b[2K${live}`);
    };
    const note = (line: string): void => {
      if (json) {
        stderr.write(`woolrx relay: ${line}\n`);
        return;
      }
      stdout.write(`\r\x1b[2K${line}\n`);
      redraw();
    };
    const diagnostic = diagnosticLines({ line: note });
    const show = (status: RelayStatus): void => {
      if (json) {
        stdout.write(`${JSON.stringify(status)}\n`);
        return;
      }
      switch (status.type) {
        case 'relay-status':
          live = statusLine(status, route);
          redraw();
          break;
        case 'relay-skipped':
          note(`skipped worker ${status.uid}: ${status.reason}`);
          break;
        case 'relay-error':
          note(status.message);
          break;
        case 'relay-diagnostic':
          diagnostic({
            kind: status.kind,
            namespace: status.side === 'source' ? namespace : toNamespace,
            message: `${status.side}: ${status.message}`,
            ...(status.uid === undefined ? {} : { uid: status.uid }),
            ...(status.code === undefined
              ? {}
              : {
                  error: {
                    code: status.code,
                    endpoints: flagValues.list(values, 'endpoints').flatMap((e) => e.split(',')),
                  },
                }),
          });
          break;
      }
    };
    // The source ends on the signal: the relay then withdraws and completes.
    const stop = aborted(signal);
    const stoppable: Discovery = Object.freeze({
      ...source,
      watch: (filter?: (worker: WorkerInfo) => boolean) => source.watch(filter).pipe(takeUntil(stop)),
    });
    const code = await firstValueFrom(
      relayWorkers(stoppable, target, {
        id,
        sameHost: SAME_HOST_BACKENDS.has(to),
        // A local target drops a worker whose pid is not alive here: tie the relayed ones to this process.
        ...(to === 'local' ? { pid: process.pid } : {}),
        ...(advertiseHost === undefined ? {} : { advertiseHost }),
        ...(tags.length === 0
          ? {}
          : { filter: (worker: WorkerInfo) => tags.every((tag) => worker.tags.includes(tag)) }),
      }).pipe(
        tap(show),
        ignoreElements(),
        endWith(0),
        catchError((error: unknown) => {
          note(cliErrorMessage(error, namespace));
          return of(1);
        }),
      ),
      { defaultValue: 0 },
    );
    if (!json && live !== undefined) stdout.write('\n');
    return code;
  },
};
