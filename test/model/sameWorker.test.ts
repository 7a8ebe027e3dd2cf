import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sameWorker } from '../../src/model/sameWorker.js';
import { workerInfo } from '../../src/model/workerInfo.js';

const w = workerInfo({
  uid: '00000000-0000-4000-8000-000000000001',
  address: '10.0.0.5:7000',
  pid: 1,
  version: '1.0.0',
  tags: ['gpu', 'big'],
  extra: { zone: 'eu-1', rack: '7' },
  secure: true,
});

describe('sameWorker', () => {
  it('is true for the same reference and for structural copies', () => {
    assert.ok(sameWorker(w, w));
    assert.ok(
      sameWorker(
        w,
        workerInfo({
          ...w,
          tags: ['big', 'gpu'],
          extra: new Map([
            ['rack', '7'],
            ['zone', 'eu-1'],
          ]),
        }),
      ),
    );
  });

  it('compares tags as a set and extra as a map', () => {
    assert.ok(!sameWorker(w, workerInfo({ ...w, tags: ['gpu'] })));
    assert.ok(!sameWorker(w, workerInfo({ ...w, extra: { zone: 'eu-1' } })));
    assert.ok(!sameWorker(w, workerInfo({ ...w, extra: { zone: 'eu-1', rack: '8' } })));
    assert.ok(!sameWorker(w, workerInfo({ ...w, extra: { zone: 'eu-1', shelf: '7' } })));
  });

  it('notices every scalar and every option', () => {
    const changes = [
      { address: '10.0.0.5:7001' },
      { pid: 2 },
      { version: '1.0.1' },
      { secure: false },
      { uid: '00000000-0000-4000-8000-000000000002' },
      { options: { maxReceiveMessageLength: 1 } },
      { options: { maxSendMessageLength: 1 } },
      { options: { keepaliveTimeMs: 1 } },
      { options: { keepaliveTimeoutMs: 1 } },
      { options: { keepalivePermitWithoutCalls: false } },
      { options: { maxPingsWithoutData: 1 } },
      { options: { maxConcurrentStreams: 1 } },
      { options: { compression: 'gzip' as const } },
    ];
    for (const change of changes) {
      assert.ok(!sameWorker(w, workerInfo({ ...w, ...change })), JSON.stringify(change));
    }
  });
});
