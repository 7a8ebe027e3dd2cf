import { watch, realpathSync, mkdirSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { workerInfo } from '../../../src/model/workerInfo.js';
import { localNames } from '../../../src/backends/local/localNames.js';
const [role, ns] = process.argv.slice(2);
const N = 1000, W = 2000;
if (role === 'pub') {
  const pub = localDiscovery(ns!, { capacity: N, pollInterval: false }).publisher();
  process.once('message', async () => {
    for (let i = 0; i < W; i++) { const w = workerInfo({ uid: randomUUID(), address: `127.0.0.1:${9000 + (i % 1000)}`, pid: process.pid, version: '0' }); await pub.publish('worker-added', w); await sleep(1); await pub.publish('worker-dropped', w); await sleep(1); }
    (globalThis as any).gc?.();
    const starts: string[] = [];
    for (let i = 0; i < N; i++) { const w = workerInfo({ uid: randomUUID(), address: `127.0.0.1:${10000 + i}`, pid: process.pid, version: '1.0.0', tags: ['bench'] }); const s = process.hrtime.bigint(); await pub.publish('worker-added', w); starts.push(s.toString()); await sleep(1); }
    process.send!({ starts }); await pub.close(); process.disconnect();
  });
  process.send!({ ready: 1 });
} else if (role === 'watch') {
  const names = localNames(ns!, realpathSync(tmpdir()));
  mkdirSync(names.notifyDir, { recursive: true });
  const arrivals: string[] = []; let last = 0; let fd = -1; const buf = Buffer.alloc(40);
  const w = watch(names.notifyDir, (t, f) => { if (f !== 'notify') return; const now = process.hrtime.bigint(); if (fd < 0) fd = openSync(names.notifyPath, 'r'); readSync(fd, buf, 0, 40, 0); const c = Number(buf.toString('latin1').trim().split(':').pop()); for (; last < c; last++) if (last >= 2 * W) arrivals.push(now.toString()); if (arrivals.length >= N) { w.close(); process.send!({ arrivals }); process.disconnect(); } });
  process.send!({ ready: 1 });
} else {
  for (let r = 0; r < Number(process.env.ROUNDS ?? 3); r++) for (const cfg of ['normal', 'sync']) {
    const ns = 'hyb-' + randomUUID().slice(0, 8); const me = new URL(import.meta.url).pathname;
    const opts = { execArgv: ['--import', 'tsx', '--expose-gc'], env: { ...process.env, ...(cfg === 'sync' ? { XP_SYNC: '1' } : {}) } };
    const a = fork(me, ['watch', ns], opts); await new Promise(r => a.once('message', r));
    const b = fork(me, ['pub', ns], opts); await new Promise(r => b.once('message', r));
    const res = new Promise<any>(r => a.once('message', r)); const st = new Promise<any>(r => b.once('message', r));
    b.send('go');
    const [{ arrivals }, { starts }] = await Promise.all([res, st]);
    const lat = starts.map((s: string, i: number) => Number(BigInt(arrivals[i]) - BigInt(s)) / 1000).sort((x: number, y: number) => x - y);
    const q = (f: number) => lat[Math.floor(lat.length * f)].toFixed(0);
    console.log(`${cfg.padEnd(7)} publisher → bare watcher: p50 ${q(.5)} p98 ${q(.98)} p99 ${q(.99)} >1.5ms ${lat.filter((x: number) => x > 1500).length}`);
    await sleep(300);
  }
}
