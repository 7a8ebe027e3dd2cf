// Bench child: the floor under a local subscriber — the reads a woolrx
// subscriber makes for the changes a notification announces, bare: no
// decoding, no events, no allocation per change. What any Node.js reader of
// woolrx's journal pays per change on this machine (see benchLocalFloor in
// bench.ts and benchLocalBulkFloor in bulk.ts).
//
// Like woolrx's NotifyWatcher it watches the notification directory and
// the notification file itself (fs.watch: one inotify descriptor, both
// events of a notification read at once); on the directory's event for
// `notify` it reads at once, in the watcher's callback (woolrx runs its
// scan a phase of the event loop later, once per turn: woolrx's cost, not
// the floor's), like woolrx's JournalFollower and SlotMirror, the
// journal head, each record since the last read, the head again (a record
// overwritten meanwhile), and the slot each record names (the segment shows
// the change). A subscriber more than the ring's length behind (an overrun)
// reads the slot table and every block it has not seen yet, as woolrx's
// reconciliation does (open, fstat, the block, its record again; the
// descriptor kept). The journal and blocks are bareProcess.ts's (its
// records carry sequence number, uid and slot as woolrx's do).
//
// argv[2]: the directory in /dev/shm (segment, journal, blocks), argv[3]:
// the notification file (its directory also holds wool's lock file, `lock`),
// argv[4]: changes to time, argv[5]: untimed changes to see first,
// argv[6]: the capacity, argv[7] (traced only): a markers directory.
// It starts at the journal's head (earlier records are not its to read).
// Talks to the parent over IPC: `ready`; once it has seen `warm-up + count`
// changes, `arrivals` — CLOCK_MONOTONIC when it had read each timed change,
// by slot, the time of the last, its CPU (user + system) from the end of
// the warm-up (a full GC then; without one, from `ready`) to the last
// change, and how many overruns.
// Run without IPC (test/bench/bareFloor.test.ts, under strace), it drives a
// lone-add bare publisher (bareProcess.ts, `{ op: 'add' }`) itself: `warm-up`
// adds, each seen before the next, then `count` more between stats of
// `<markers>/trace-start` and `<markers>/trace-end`, each after a stat of
// `<markers>/trace-event` (missing files: markers in the trace), and exits.
import { fork } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readSync, statSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const [dir = '', notify = '', countArg = '0', warmupArg = '0', capacityArg = '0', markers = ''] = process.argv.slice(2);
const count = Number(countArg);
const warmup = Number(warmupArg);
const capacity = Number(capacityArg);
const SLOT = 16;
const RECORD = 40 + 1020; // as bareProcess.ts sizes a record
const RECORDS = 512;
/** Block descriptors kept open, as woolrx's BlockReader keeps. */
const MAX_OPEN = 4096;

const journal = openSync(join(dir, 'journal'), constants.O_RDONLY);
const segment = openSync(join(dir, 'segment'), constants.O_RDONLY);
const head = Buffer.alloc(24);
const record = Buffer.alloc(RECORD);
const slot = Buffer.alloc(SLOT);
/** The slots of the records of one read. */
const slots = new Uint32Array(RECORDS);
const block = Buffer.alloc(1024);
const again = Buffer.alloc(1024);
/** Slots whose change was read (from a record or a block). */
const seenSlots = new Uint8Array(capacity);
let table: Buffer | undefined;
let open = 0;

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
readSync(journal, head, 0, 24, 0);
/** The journal's head when this subscriber started, and the next record to read. */
const base = head.readUInt32LE(16);
let next = base;
const arrivals: [number, string][] = [];
let cpu: NodeJS.CpuUsage | undefined;
let overruns = 0;
let done = false;
/** Called after each read that found changes (the traced run waits on it). */
let progressed: (() => void) | undefined;

/** Reads what the notification announces: the head, each new record, the head again, each record's slot. */
function scan(): void {
  readSync(journal, head, 0, 24, 0);
  const to = head.readUInt32LE(16);
  if (to === next) return;
  if (to - next > RECORDS) {
    overrun();
  } else {
    const from = next;
    for (let seq = from; seq < to; seq += 1) {
      readSync(journal, record, 0, RECORD, 64 + RECORD * (seq % RECORDS));
      if (record.readUInt32LE(0) !== seq) throw new Error(`journal record ${seq} is not there`);
      slots[seq - from] = record.readUInt32LE(32);
    }
    readSync(journal, head, 0, 24, 0);
    if (head.readUInt32LE(16) - from >= RECORDS) {
      overrun();
    } else {
      // Each record's slot (woolrx checks each uid's last record of a
      // batch; every bare add is of a new uid).
      for (let seq = from; seq < to; seq += 1) {
        const at = slots[seq - from] ?? 0;
        readSync(segment, slot, 0, SLOT, 16 + SLOT * at);
        seenSlots[at] = 1;
        arrived(seq, at);
      }
      next = to;
    }
  }
  progressed?.();
}

/**
 * More than the ring behind: the slot table, then each block not seen
 * (opened, its size, read twice as woolrx's BlockReader does), its
 * descriptor kept while fewer than MAX_OPEN are.
 */
function overrun(): void {
  overruns += 1;
  // The head first: the table read after it shows every change it counts (slots are written before records).
  readSync(journal, head, 0, 24, 0);
  const to = head.readUInt32LE(16);
  table ??= Buffer.alloc(SLOT * capacity);
  readSync(segment, table, 0, table.length, 16);
  for (let at = 0; at < capacity; at += 1) {
    if (seenSlots[at] === 1 || table.readUInt32LE(SLOT * at) === 0) continue;
    const fd = openSync(
      join(dir, `b-${table.toString('hex', SLOT * at, SLOT * (at + 1))}`),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    );
    const size = fstatSync(fd).size;
    readSync(fd, block, 0, size, 0);
    readSync(fd, again, 0, 4 + block.readUInt32LE(0), 0);
    if (open < MAX_OPEN) open += 1;
    else closeSync(fd);
    seenSlots[at] = 1;
  }
  // Every change up to the head read is now read.
  for (let seq = next; seq < to; seq += 1) arrived(seq, -1);
  next = to;
}

/** The change `seq` (in slot `at`, -1: not known) has been read. */
function arrived(seq: number, at: number): void {
  const k = seq - base;
  if (k === warmup - 1) {
    // The warm-up's garbage is collected before the timed changes.
    gc();
    cpu = process.cpuUsage();
  }
  if (k < warmup || done) return;
  const now = process.hrtime.bigint().toString();
  arrivals.push([at, now]);
  if (k === warmup + count - 1) {
    done = true;
    const used = process.cpuUsage(cpu);
    if (process.send !== undefined) {
      watchers.forEach((w) => w.close());
      // Disconnected once sent: a large message still being written would be cut.
      process.send({ arrivals, last: now, cpuUs: used.user + used.system, overruns }, undefined, {}, () =>
        process.disconnect(),
      );
    }
  }
}

const notifyDir = dirname(notify);
const watchers = [
  watch(notifyDir, (_type, filename) => {
    if (filename === 'notify') scan();
  }),
  // Its own events are not needed: watched, as woolrx watches it (two
  // events per notification, read at once).
  watch(notify, { persistent: false }, () => undefined),
];

if (process.send === undefined) {
  // Traced: drives a lone-add bare publisher.
  const publisher = fork(
    join(dirname(fileURLToPath(import.meta.url)), 'bareProcess.ts'),
    [dir, join(notifyDir, 'lock'), notify, '0', String(capacity), '0', '0', 'lone:0'],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const message = (key: string): Promise<void> =>
    new Promise((resolve) => publisher.once('message', (m: Record<string, unknown>) => key in m && resolve()));
  await message('ready');
  const addOne = async (): Promise<void> => {
    const seen = new Promise<void>((resolve) => (progressed = resolve));
    publisher.send({ op: 'add' });
    await Promise.all([seen, message('added')]);
    await sleep(20);
  };
  for (let i = 0; i < warmup; i += 1) await addOne();
  statSync(join(markers, 'trace-start'), { throwIfNoEntry: false });
  for (let i = 0; i < count; i += 1) {
    statSync(join(markers, 'trace-event'), { throwIfNoEntry: false });
    await addOne();
  }
  statSync(join(markers, 'trace-end'), { throwIfNoEntry: false });
  publisher.disconnect();
  watchers.forEach((w) => w.close());
  if (!done) throw new Error(`saw ${next - base} of ${warmup + count} changes`);
} else {
  // The bench went away before the last change (killed, or failed): leave
  // with it. The directory's watcher would otherwise keep it running for good.
  process.once('disconnect', () => watchers.forEach((w) => w.close()));
  gc();
  // No warm-up: the CPU is counted from now.
  if (warmup === 0) cpu = process.cpuUsage();
  process.send({ ready: true });
}
