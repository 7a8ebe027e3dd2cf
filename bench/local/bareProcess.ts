// Bench child: the floor under a local publish — the system calls one
// woolrx add makes, in the same order, on files of the same kinds and sizes,
// with nothing else: no validation, no encoding, no slot search, no promise.
// What any Node.js implementation of wool's layout with woolrx's journal
// pays per add on this machine (see benchLocalBulkFloor in bulk.ts).
//
// argv[2]: a directory in /dev/shm shared by every bare publisher of a run
// (their woolrx lock, segment, journal), argv[3]: wool's lock file (in the
// temp directory, like wool's), argv[4]: the notification file, argv[5]:
// adds to make, argv[6]: the capacity, argv[7]: this publisher's first slot,
// argv[8]: untimed adds first (into the slots after its `count`).
// Talks to the parent over IPC: `ready`, then `{ op: 'run' }` → `published`
// (CLOCK_MONOTONIC when the last add was done) and the CPU it used. Run
// without IPC (test/bench/bareFloor.test.ts, under strace): makes the
// warm-up adds, then `count` adds between two stats of `<dir>/trace-start`
// and `<dir>/trace-end` (missing files: markers in the trace), and exits.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { flock } from '../../src/backends/local/flockAddon.js';

const [dir = '', woolLock = '', notify = '', countArg = '0', capacityArg = '0', firstArg = '0', warmupArg = '0'] = process.argv.slice(2);
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

const table = Buffer.alloc(SLOT * capacity);
const intent = Buffer.alloc(SLOT);
const free = Buffer.alloc(SLOT);
const uid = Buffer.alloc(SLOT);
const block = Buffer.alloc(1024);
const record = Buffer.alloc(40 + 95); // the header and payload of a bench worker's record
const head = Buffer.alloc(24);
const marker = Buffer.alloc(40, 0x20);
const BLOCK_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** One add: the woolrx publisher's system calls, in its order. */
function add(i: number): void {
  const slot = first + i;
  uid.writeUInt32LE(process.pid, 0);
  uid.writeUInt32LE(slot + 1, 4);
  // woolrx's lock, then wool's, each path re-checked once locked; a busy
  // lock is waited for in the kernel (best case: the waiter runs the moment
  // it is free, and burns no CPU meanwhile).
  flock(rx, 'ex');
  statSync(rxLock);
  flock(wool, 'ex');
  statSync(woolLock);
  // The segment still at its path; its slot table; the intent record.
  statSync(segmentPath);
  readSync(segment, table, 0, table.length, 16);
  readSync(rx, intent, 0, SLOT, 0);
  writeSync(rx, uid, 0, SLOT, 0);
  // The block: created, written whole, its inode noted, closed.
  const fd = openSync(join(dir, `b-${process.pid}-${i}`), BLOCK_FLAGS, 0o600);
  writeSync(fd, block, 0, block.length, 0);
  fstatSync(fd);
  closeSync(fd);
  // The slot, the intent cleared, the journal record and head.
  writeSync(segment, uid, 0, SLOT, 16 + SLOT * slot);
  writeSync(rx, free, 0, SLOT, 0);
  readSync(journal, head, 0, 24, 0);
  writeSync(journal, record, 0, record.length, 64 + RECORD * (slot % RECORDS));
  writeSync(journal, head, 0, 8, 16);
  flock(wool, 'un');
  flock(rx, 'un');
  // The notification, after the lock.
  writeSync(notifyFd, marker, 0, marker.length, 0);
}

// Warm-up, untimed: into the slots after this publisher's `count` (the
// parent spaces publishers that far apart).
for (let i = count; i < count + warmup; i += 1) add(i);

if (process.send === undefined) {
  statSync(join(dir, 'trace-start'), { throwIfNoEntry: false });
  for (let i = 0; i < count; i += 1) add(i);
  statSync(join(dir, 'trace-end'), { throwIfNoEntry: false });
  process.exit(0);
}

process.on('message', (message: { op: string }) => {
  if (message.op !== 'run') return;
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i += 1) add(i);
  const used = process.cpuUsage(cpu);
  process.send?.({ published: process.hrtime.bigint().toString(), cpu_us: used.user + used.system });
  process.disconnect();
});
(globalThis as { gc?: () => void }).gc?.();
process.send?.({ ready: true });
