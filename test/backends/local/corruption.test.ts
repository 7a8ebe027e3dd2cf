// Silent corruption of a namespace is reported on
// `diagnostics` (rate-limited), and the stream goes on.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, openSync, rmSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { localDiscovery } from '../../../src/backends/local/index.js';
import { blockName } from '../../../src/backends/local/block/blockFile.js';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { assertClean, makeWorker, Recorder, strayTestFiles, TMP, uniqueNamespace, waitFor } from './helpers.js';

const POLL = 100;

after(() => {
  assert.deepEqual(strayTestFiles(), [], 'nothing of these tests left in /dev/shm or the temp directory');
});

describe('local backend: corruption is reported', () => {
  it(
    'garbage in a free slot, a truncated and a missing block, a destroyed WLD1 magic, a truncated segment: each reported once, the stream goes on',
    { timeout: 60_000 },
    async () => {
      const namespace = uniqueNamespace('corrupt');
      const names = localNames(namespace, TMP);
      const discovery = localDiscovery(namespace, { pollInterval: POLL, capacity: 8, liveness: false });
      const publisher = discovery.publisher();
      const [a, b, c] = [makeWorker(), makeWorker(), makeWorker()];
      for (const w of [a, b, c]) await publisher.publish('worker-added', w);
      const recorder = new Recorder(discovery.events(), discovery.diagnostics);
      assert.equal(recorder.workers.size, 3);
      const reports = (pattern: RegExp) => recorder.diagnostics.filter((d) => pattern.test(d.message));
      const reported = async (pattern: RegExp, what: string) => {
        await waitFor(() => reports(pattern).length > 0, what, 10_000);
        // Rate-limited: still once after several more poll ticks.
        await new Promise((resolve) => setTimeout(resolve, POLL * 5));
        assert.equal(reports(pattern).length, 1, `${what} reported once`);
        assert.equal(recorder.error, undefined, 'the stream does not error');
      };

      // Garbage in a free slot (slot 7): a uid with no block.
      const segment = openSync(names.segmentPath, 'r+');
      const garbage = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
      writeSync(segment, garbage, 0, 16, 16 + 16 * 7);
      await reported(/01234567-89ab-cdef-0123-456789abcdef.*there is no block/, 'garbage in a free slot');

      // A truncated block (its length prefix now exceeds it).
      truncateSync(join('/dev/shm', blockName(a.uid)), 10);
      await reported(new RegExp(`${a.uid}.*length prefix exceeds the 10-byte block.*truncated`), 'a truncated block');

      // A missing block.
      unlinkSync(join('/dev/shm', blockName(b.uid)));
      await reported(new RegExp(`${b.uid}.*there is no block`), 'a missing block');

      // The stream goes on.
      const d = makeWorker();
      await publisher.publish('worker-added', d);
      await waitFor(() => recorder.workers.has(d.uid), 'a new worker after the corruption');

      // A destroyed WLD1 magic.
      writeSync(segment, Buffer.from('XXXX'), 0, 4, 0);
      await reported(/WLD1 header is missing/, 'a destroyed magic');
      writeSync(segment, Buffer.from('WLD1'), 0, 4, 0);

      // A truncated segment (header and 2 of its 8 slots).
      ftruncateSync(segment, 16 + 16 * 2);
      await reported(/too short for its 8 slots \(truncated\)/, 'a truncated segment');
      closeSync(segment);

      recorder.stop();
      await publisher.close();
      // What the damage left: removed by hand, then the last one out.
      for (const w of [a, b, c, d]) rmSync(join('/dev/shm', blockName(w.uid)), { force: true });
      rmSync(names.segmentPath, { force: true });
      localDiscovery(namespace).events().subscribe().unsubscribe();
      await assertClean(namespace, [a.uid, b.uid, c.uid, d.uid]);
    },
  );
});
