// Bench child: the floor under a local publish — the system calls one
// woolrx add makes, in the same order, on files of the same kinds and sizes,
// with nothing else: no validation, no encoding, no slot search, no promise.
// What any Node.js implementation of wool's layout with woolrx's journal
// pays per add on this machine (see benchLocalBulkFloor in bulk.ts).
//
// Like a woolrx publisher it keeps the namespace lock across adds for up to
// LOCK_LINGER_MS after taking it, unless another publisher says it waits
// (then it releases after each add), leaves it free LOCK_PAUSE_MS after
// holding it LOCK_HOLD_MS in a row, clears the intent record and sends the
// notifications owed when it releases; taken afresh, the lock costs the path
// checks, the slot table, the intent record and the journal head again.
//
// argv[2]: a directory in /dev/shm shared by every bare publisher of a run
// (their woolrx lock, segment, journal), argv[3]: wool's lock file (in the
// temp directory, like wool's), argv[4]: the notification file, argv[5]:
// adds to make, argv[6]: the capacity, argv[7]: this publisher's first slot,
// argv[8]: untimed adds first (into the slots after its `count`), argv[9]:
// empty for the bulk floor, `retry` for the bulk floor whose publishers
// retry a busy lock as a woolrx publisher does (next turns of the event
// loop, then backoff sleeps) instead of waiting for it in the kernel, or
// `lone:<warm-up>` for the lone-add floor (see
// benchLocalFloor in bench.ts): then `run` makes `<warm-up>` untimed adds
// (into the slots after its `count`), then its `count` timed ones, each a
// lone add (1 ms apart, as the latency row paces woolrx's: the lock taken
// afresh, released before the notification), and answers `starts`
// (CLOCK_MONOTONIC just before each). Its journal records and head are
// those of woolrx's journal (sequence number, type, payload length, uid,
// slot; the head the next sequence number), so that a bare subscriber
// (bareSubscriberProcess.ts) can follow them; its blocks are named after
// their uid, so that one can read them too. argv[10]: the slots of the
// table read under a lock taken afresh, as many as the row's namespace
// has (default: the capacity; the warm-up's slots are beyond).
// Talks to the parent over IPC: `ready`, then `{ op: 'run' }` → `published`
// (CLOCK_MONOTONIC when the last add was done) and the CPU it used (every
// thread's, and the main thread's); or
// `{ op: 'add' }` → one add now (by the rule), `added`. Run
// without IPC (test/bench/bareFloor.test.ts, under strace): makes the
// warm-up adds, then one add of each kind (see VARIANTS, into the slots
// after the warm-up's: the capacity must hold count + warm-up + 4; in the
// lone mode four lone adds instead, 2 ms apart), each after a stat
// of `<dir>/trace-add` and the first after a stat of `<dir>/trace-start`,
// the last followed by a stat of `<dir>/trace-end` (missing files: markers
// in the trace), and exits.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { retryDelay } from '../../src/discovery/retryDelay.js';
import { flock, ofdlock } from '../../src/backends/local/lock/flockAddon.js';
import { emptyYoungGeneration } from './emptyYoungGeneration.js';
import { threadCpuUs } from './threadCpuUs.js';
import {
  LOCK_BURST_GAP_MS,
  LOCK_HOLD_MS,
  LOCK_LINGER_MS,
  LOCK_PAUSE_MS,
  LOCK_RETAKE_GAP_MS,
} from '../../src/backends/local/lock/LockHolding.js';

const [
  dir = '',
  woolLock = '',
  notify = '',
  countArg = '0',
  capacityArg = '0',
  firstArg = '0',
  warmupArg = '0',
  modeArg = '',
  tableArg = capacityArg,
] = process.argv.slice(2);
/** The lone-add floor's untimed adds, or `undefined` for the bulk floor. */
const lone = modeArg.startsWith('lone:') ? Number(modeArg.slice(5)) : undefined;
/** The bulk floor's waiters retry a busy lock (`retry`), instead of waiting for it in the kernel. */
const retrying = modeArg === 'retry';
const warmup = Number(warmupArg);
const count = Number(countArg);
const capacity = Number(capacityArg);
const first = Number(firstArg);
const SLOT = 16;
const RECORD = 40 + 1020; // a record of the default 1 KiB block's payload, as woolrx's journal sizes it
const RECORDS = 512;

const rxLock = join(dir, 'lock');
const segmentPath = join(dir, 'segment');
const journalPath = join(dir, 'journal');
const open = (path: string): number => openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
const rx = open(rxLock);
const wool = open(woolLock);
const segment = open(segmentPath);
const journal = open(journalPath);
const notifyFd = open(notify);

/** The slot table as the row's namespace has it (its capacity: the workers timed), read under a lock taken afresh. */
const table = Buffer.alloc(SLOT * Math.min(capacity, Number(tableArg)));
const intent = Buffer.alloc(SLOT);
const free = Buffer.alloc(SLOT);
const uid = Buffer.alloc(SLOT);
const block = Buffer.alloc(1024);
block.writeUInt32LE(95, 0); // the length prefix of a bench worker's record
const record = Buffer.alloc(40 + 95); // the header and payload of a bench worker's record
record.writeUInt8(1, 8); // added
record.writeUInt32LE(95, 12);
/**
 * The journal's first 24 bytes: bytes 16-23 are the head (the next sequence number), as read under
 * a lock taken afresh or as last written.
 */
const head = Buffer.alloc(24);
/** The notification's bytes, like woolrx's (`woolrx:<pid>:<salt>:<counter>`, 40 bytes). */
const marker = Buffer.from('woolrx:0:00000000:000000000'.padEnd(40, ' '), 'latin1');
const BLOCK_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** woolrx's lock file's byte that waiting publishers hold shared (FileLock's WAITING_BYTE). */
const WAITING_BYTE = 4096;

/** The lock is held from an earlier add (kept), and since when. */
let kept = false;
let takenAt = 0;
/** Since when the lock has been held in a row, and when it was last let go (the pause: see LOCK_HOLD_MS). */
let holdingSince = 0;
let releasedAt = -Infinity;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** How an add ends: by the rule (the time bound, then a waiter), or forced (the traced variants). */
type Ending = 'rule' | 'keep' | 'release';

/**
 * Before the lock is taken afresh: held LOCK_HOLD_MS in a row, it is left
 * free LOCK_PAUSE_MS first.
 * @returns Whether this is a burst (taken again right after letting it go).
 */
function pauseBeforeTaking(): boolean {
  const now = performance.now();
  let burst = now - releasedAt <= LOCK_BURST_GAP_MS;
  if (now - releasedAt > LOCK_RETAKE_GAP_MS) holdingSince = now;
  if (now - holdingSince >= LOCK_HOLD_MS) {
    Atomics.wait(pause, 0, 0, LOCK_PAUSE_MS);
    holdingSince = performance.now();
    burst = false;
  }
  return burst;
}

/**
 * woolrx's lock taken afresh as a Node.js process that must not block its
 * event loop can (the `retry` mode): tried, then, saying it waits, tried
 * again on the next turns of the loop a few times, then after 1, 2, 4 ...
 * 20 ms (woolrx's policy: acquireOne in namespaceLock.ts).
 * @returns Whether this is a burst (see pauseBeforeTaking).
 */
async function takeRetrying(): Promise<boolean> {
  const burst = pauseBeforeTaking();
  let announced = false;
  for (let attempt = 0; !flock(rx, 'exnb'); attempt += 1) {
    if (!announced) ofdlock(rx, 'share', WAITING_BYTE);
    announced = true;
    if (attempt < 8) await yieldToLoop();
    else await sleep(retryDelay(attempt - 8, 1, 20));
  }
  if (announced) ofdlock(rx, 'release', WAITING_BYTE);
  return burst;
}

/**
 * One add: the woolrx publisher's system calls, in its order.
 * @param afresh When woolrx's lock was just taken by takeRetrying: whether
 * this is a burst (the add then takes only wool's lock).
 */
function add(i: number, ending: Ending = 'rule', afresh?: boolean): void {
  const slot = first + i;
  uid.writeUInt32LE(process.pid, 0);
  uid.writeUInt32LE(slot + 1, 4);
  uid.copy(record, 16);
  record.writeUInt32LE(slot, 32);
  let burst = kept;
  if (!kept) {
    if (afresh !== undefined) {
      burst = afresh;
    } else {
      burst = pauseBeforeTaking();
      // woolrx's lock, then wool's, each path re-checked once locked; a busy
      // lock is waited for in the kernel (best case: the waiter runs the
      // moment it is free, and burns no CPU meanwhile), saying it waits.
      if (!flock(rx, 'exnb')) {
        ofdlock(rx, 'share', WAITING_BYTE);
        flock(rx, 'ex');
        ofdlock(rx, 'release', WAITING_BYTE);
      }
    }
    statSync(rxLock);
    flock(wool, 'ex');
    statSync(woolLock);
    takenAt = performance.now();
    // The segment still at its path; its slot table; the intent record.
    statSync(segmentPath);
    readSync(segment, table, 0, table.length, 16);
    readSync(rx, intent, 0, SLOT, 0);
  } else {
    // Kept: only the segment's path is checked again.
    statSync(segmentPath);
  }
  writeSync(rx, uid, 0, SLOT, 0);
  // The block: created, written whole, its inode noted, closed.
  const fd = openSync(join(dir, `b-${uid.toString('hex')}`), BLOCK_FLAGS, 0o600);
  writeSync(fd, block, 0, block.length, 0);
  fstatSync(fd);
  closeSync(fd);
  // The slot, the journal record and head (the head is read only under a
  // lock taken afresh; the intent record is cleared at the release).
  writeSync(segment, uid, 0, SLOT, 16 + SLOT * slot);
  if (!kept) readSync(journal, head, 0, 24, 0);
  const seq = head.readUInt32LE(16);
  record.writeUInt32LE(seq, 0);
  writeSync(journal, record, 0, record.length, 64 + RECORD * (seq % RECORDS));
  head.writeUInt32LE(seq + 1, 16);
  writeSync(journal, head, 16, 8, 16);
  // Released now once past the bound (then the notifications owed go out);
  // otherwise after the notification, unless someone waits: else kept for
  // the next add. An add under a kept lock that keeps it owes its
  // notification until the release.
  const holding = ending === 'keep' || (ending === 'rule' && burst && performance.now() - takenAt < LOCK_LINGER_MS);
  if (!holding) release();
  if (kept && holding) owed += 1;
  else notifyOnce();
  kept = holding && !ofdlock(rx, 'query', WAITING_BYTE);
  if (holding && !kept) release();
}

/** Notifications owed by adds under a kept lock. */
let owed = 0;

function notifyOnce(): void {
  writeSync(notifyFd, marker, 0, marker.length, 0);
}

/** Clears the intent record, releases both locks, then sends the notifications owed. */
function release(): void {
  writeSync(rx, free, 0, SLOT, 0);
  flock(wool, 'un');
  flock(rx, 'un');
  releasedAt = performance.now();
  kept = false;
  for (; owed > 0; owed -= 1) notifyOnce();
}

/**
 * The kinds of add the trace shows, in an order that reaches each: the lock
 * taken afresh then kept, kept and kept again, kept then released (the
 * bound passed), taken afresh and released (the bound passed within it).
 */
const VARIANTS: readonly Ending[] = ['keep', 'keep', 'release', 'release'];

// Warm-up, untimed: into the slots after this publisher's `count` (the
// parent spaces publishers that far apart).
for (let i = count; i < count + warmup; i += 1) add(i);
// Released before waiting for the start (a woolrx publisher releases it
// when its event loop turns): other publishers warm up meanwhile.
if (kept) release();

if (process.send === undefined) {
  statSync(join(dir, 'trace-start'), { throwIfNoEntry: false });
  // Into the slots after the warm-up's.
  for (const [k, ending] of VARIANTS.entries()) {
    // The lone-add floor's adds: by the rule, paced as its run paces them.
    if (lone !== undefined) await sleep(2);
    statSync(join(dir, 'trace-add'), { throwIfNoEntry: false });
    add(count + warmup + k, lone === undefined ? ending : 'rule');
  }
  statSync(join(dir, 'trace-end'), { throwIfNoEntry: false });
  process.exit(0);
}

/** The slot of the next add asked for by `{ op: 'add' }`. */
let asked = count + warmup;
process.on('message', (message: { op: string }) => {
  if (message.op === 'add') {
    // One add now (the traced bare subscriber paces them: each a lone add).
    add(asked);
    asked += 1;
    process.send?.({ added: true });
    return;
  }
  if (message.op !== 'run') return;
  if (lone !== undefined) {
    void runLone(lone);
    return;
  }
  void runBulk();
});

/** The bulk floor's run: `count` adds back to back, a busy lock waited for in the kernel or by retrying. */
async function runBulk(): Promise<void> {
  const cpu = process.cpuUsage();
  const main = threadCpuUs();
  if (retrying) {
    for (let i = 0; i < count; i += 1) add(i, 'rule', kept ? undefined : await takeRetrying());
  } else {
    for (let i = 0; i < count; i += 1) add(i);
  }
  if (kept) release();
  const used = process.cpuUsage(cpu);
  process.send?.({
    published: process.hrtime.bigint().toString(),
    cpu_us: used.user + used.system,
    main_us: threadCpuUs() - main,
  });
  process.disconnect();
}
(globalThis as { gc?: () => void }).gc?.();
process.send?.({ ready: true });

/**
 * The lone-add floor's run: `warm` untimed lone adds, a full GC, then the
 * timed ones, each started `CLOCK_MONOTONIC` noted, 1 ms apart (as the
 * latency row's publisher: bench/local/publisherProcess.ts).
 */
async function runLone(warm: number): Promise<void> {
  for (let i = count; i < count + warm; i += 1) {
    add(i);
    await sleep(1);
  }
  (globalThis as { gc?: () => void }).gc?.();
  // The bare subscriber notes its CPU once it has seen the warm-up.
  await sleep(50);
  emptyYoungGeneration();
  const starts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = process.hrtime.bigint();
    add(i);
    starts.push(start.toString());
    await sleep(1);
  }
  process.send?.({ starts });
  process.disconnect();
}
