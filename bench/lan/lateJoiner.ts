/**
 * LAN late-joiner benchmark: one publisher process in network namespace A
 * holds N workers (`probe: false`, all announced and their repeated
 * announcements sent); then a new subscriber process in namespace B calls
 * `watch()`, once per run. Measured from the subscribe call: until every
 * one of the N workers is seen (`worker-added`), and until the synced
 * signal (`syncWindow` at its default), with how many workers it had then;
 * and what B's veth received meanwhile (packets, bytes, UDP receive-buffer
 * drops). The floor: the same number of datagrams of the same size, asked
 * for with one datagram and sent back over plain UDP (no DNS, no
 * discovery), in bursts of 32.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Netns } from '../../test/backends/lan/netns.js';

/** One late joiner's run. */
export interface LateJoinerRun {
  first_ms: number;
  all_ms: number;
  synced_ms: number;
  seen_at_synced: number;
  rx_packets: number;
  rx_bytes: number;
  udp_rcvbuf_errors: number;
}

/** Result of {@link benchLanLateJoiner}. */
export interface LateJoinerResult {
  workers: number;
  runs: LateJoinerRun[];
  floor_ms: number[];
}

/** Ethernet, IPv4 and UDP headers, per packet on the veth. */
const FRAME_OVERHEAD = 14 + 20 + 8;

function nextLine(
  child: ChildProcess,
  what: string,
  timeoutMs: number,
  match: (message: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      lines.close();
      reject(new Error(`LAN late-joiner bench: no ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    lines.on('line', (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        process.stderr.write(`${line}\n`);
        return;
      }
      if (typeof message['error'] === 'string') {
        clearTimeout(timer);
        lines.close();
        reject(new Error(`LAN late-joiner bench (${what}): ${message['error']}`));
      } else if (match(message)) {
        clearTimeout(timer);
        lines.close();
        resolve(message);
      }
    });
  });
}

function forwardStderr(child: ChildProcess): void {
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
}

/**
 * Runs the late-joiner benchmark for one pool size.
 * @param opts `workers`: how many workers the publisher holds; `runs`: how many late joiners, one after the other.
 * @returns Each run's figures and the floor (one per run).
 */
export async function benchLanLateJoiner(opts: { workers: number; runs: number }): Promise<LateJoinerResult> {
  const { workers, runs } = opts;
  const pair = Netns.pair('late', 10);
  const children: ChildProcess[] = [];
  try {
    const namespace = `late-${process.pid}-${workers}`;
    // The publisher's warm-up worker is one of the N.
    const publisher = pair.a.spawnNode('bench/lan/publisherProcess.ts', [
      namespace,
      String(workers - 1),
      'false',
      '10.213.10.1',
      '0',
    ]);
    children.push(publisher);
    forwardStderr(publisher);
    await nextLine(publisher, 'publisher done', 120_000, (message) => message['done'] === true);
    await sleep(1500); // the repeated announcements (1 s later) are out
    const results: LateJoinerRun[] = [];
    for (let run = 0; run < runs; run++) {
      const joiner = pair.b.spawnNode('bench/lan/lateJoinerProcess.ts', [namespace, String(workers), pair.veth.b]);
      children.push(joiner);
      forwardStderr(joiner);
      await nextLine(joiner, 'joiner ready', 30_000, (message) => message['ready'] === true);
      await sleep(200);
      joiner.stdin?.write('go\n');
      const result = await nextLine(joiner, 'joiner result', 30_000, (message) => 'all_ms' in message);
      if (result['all_ms'] === null)
        throw new Error(`LAN late-joiner bench: the joiner saw ${String(result['seen'])} of ${workers} workers`);
      results.push(result as unknown as LateJoinerRun);
      joiner.stdin?.end();
      await sleep(500);
      joiner.kill('SIGKILL');
      await sleep(1200); // the joiner's queries are answered and done
    }
    publisher.kill('SIGKILL');
    const packets = [...results].sort((x, y) => x.rx_packets - y.rx_packets)[Math.floor(results.length / 2)]!;
    const size = Math.max(1, Math.round(packets.rx_bytes / packets.rx_packets) - FRAME_OVERHEAD);
    const source = pair.a.spawnNode('bench/lan/floorProcess.ts', ['source', '5401']);
    children.push(source);
    forwardStderr(source);
    await nextLine(source, 'floor source ready', 30_000, (message) => message['ready'] === true);
    const sink = pair.b.spawnNode('bench/lan/floorProcess.ts', ['sink', '5400', '10.213.10.1', '5401']);
    children.push(sink);
    forwardStderr(sink);
    await nextLine(sink, 'floor sink ready', 30_000, (message) => message['ready'] === true);
    const floor: number[] = [];
    for (let run = 0; run < runs; run++) {
      sink.stdin?.write(`go ${packets.rx_packets} ${size}\n`);
      const result = await nextLine(sink, 'floor result', 10_000, (message) => 'floor_ms' in message);
      // Datagrams lost on the way (a receive buffer overflowing): no floor for this run.
      if (result['received'] === packets.rx_packets) floor.push(Number(result['floor_ms']));
      else
        process.stderr.write(
          `LAN late-joiner bench: floor: ${String(result['received'])} of ${packets.rx_packets} datagrams arrived; run left out\n`,
        );
      await sleep(200);
    }
    return { workers, runs: results, floor_ms: floor };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    pair.a.dispose();
    pair.b.dispose();
  }
}
