/**
 * The cost per announcement of authenticated LAN records (`signingKey`), in
 * process (no network): what a publisher adds to each announcement or
 * answer it re-signs (the canonical worker, HMAC-SHA-256, the TXT entry), and
 * what a subscriber adds to each record it sees (re-encoding the worker's
 * TXT fields, the HMAC, a constant-time comparison). Measured in interleaved
 * rounds, best round kept, like the codec bench.
 */
import { randomBytes } from 'node:crypto';
import { decodeTxtEntries } from '../../src/backends/lan/decodeTxtEntries.js';
import { encodeTxtEntries } from '../../src/backends/lan/encodeTxtEntries.js';
import { readSigningKeys, signatureEntry, verifyRecord, type LanKey } from '../../src/backends/lan/lanSigning.js';
import { decodeTxt } from '../../src/codec/decodeTxt.js';
import { encodeTxt } from '../../src/codec/encodeTxt.js';
import { workerInfo } from '../../src/model/workerInfo.js';

interface Row {
  name: string;
  value: number;
  unit: string;
}

let sink = 0;

function usPerOp(ops: ReadonlyArray<() => { length: number } | boolean>, iterations = 20_000, rounds = 7): number[] {
  const run = (op: () => { length: number } | boolean): void => {
    for (let i = 0; i < iterations; i++) {
      const value = op();
      sink ^= typeof value === 'boolean' ? Number(value) : value.length;
    }
  };
  for (const op of ops) run(op);
  const best = ops.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < rounds; round++) {
    ops.forEach((op, index) => {
      const start = performance.now();
      run(op);
      best[index] = Math.min(best[index] ?? Number.POSITIVE_INFINITY, ((performance.now() - start) * 1e3) / iterations);
    });
  }
  return best;
}

/**
 * @returns µs per announcement: TXT encoding alone, then with signing; decoding alone, then with
 * verifying; and the entry's size.
 */
export function benchLanSigning(): Row[] {
  const [key] = readSigningKeys(randomBytes(32)) as [LanKey];
  const worker = workerInfo({
    uid: '6f1c2a7e-3b0d-4c1e-9a55-0d7f3e2b9c41',
    address: '192.168.1.20:50051',
    pid: 4242,
    version: '0.13.1',
    tags: ['gpu', 'fp16'],
    extra: { zone: 'eu-1', rack: '7' },
    secure: true,
  });
  const namespace = 'bench-pool';
  const fields = { namespace, uid: worker.uid, address: worker.address };
  let time = Date.now();
  const sign = (): Buffer[] => [
    ...encodeTxtEntries(worker),
    signatureEntry(key, { ...fields, txt: encodeTxt(worker), time: ++time }),
  ];
  const signed = sign();
  const plain = encodeTxtEntries(worker);
  const decode = (txt: Buffer[]): { length: number } => {
    const entries = decodeTxtEntries(txt);
    return [decodeTxt(entries, { uid: worker.uid, address: worker.address }), entries];
  };
  const verify = (): boolean => {
    const entries = decodeTxtEntries(signed);
    const decoded = decodeTxt(entries, { uid: worker.uid, address: worker.address });
    const verdict = verifyRecord([key], entries['woolrx-sig'], { ...fields, txt: encodeTxt(decoded) });
    if (!verdict.ok) throw new Error(`bench record does not verify: ${verdict.reason}`);
    return verdict.ok;
  };
  const [encodeUs = NaN, signUs = NaN, decodeUs = NaN, verifyUs = NaN] = usPerOp([
    () => encodeTxtEntries(worker),
    sign,
    () => decode(plain),
    verify,
  ]);
  if (sink === 0.5) process.stdout.write('');
  const entry = signed.at(-1)?.length ?? NaN;
  return [
    { name: 'publisher: TXT entries, unsigned', value: encodeUs, unit: 'µs/announcement' },
    { name: 'publisher: TXT entries, signed', value: signUs, unit: 'µs/announcement' },
    { name: 'publisher: signing adds', value: signUs - encodeUs, unit: 'µs/announcement' },
    { name: 'subscriber: decode, unsigned', value: decodeUs, unit: 'µs/record' },
    { name: 'subscriber: decode + verify', value: verifyUs, unit: 'µs/record' },
    { name: 'subscriber: verifying adds', value: verifyUs - decodeUs, unit: 'µs/record' },
    { name: 'signature entry (woolrx-sig=…)', value: entry, unit: 'bytes' },
  ];
}
