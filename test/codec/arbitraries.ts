// fast-check arbitraries for the codec tests (not a test file itself).
import fc from 'fast-check';
import type { ChannelOptions, Compression, WorkerInfo } from '../../src/model/types.js';
import { workerInfo } from '../../src/model/workerInfo.js';

const NIL = '00000000-0000-0000-0000-000000000000';

/** Any Unicode text without lone surrogates (which have no UTF-8 form). */
export const text = (maxLength = 12): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
  );

const int32 = fc.integer({ min: -2_147_483_648, max: 2_147_483_647 });

export const address: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.oneof(fc.ipV4(), fc.domain()), fc.integer({ min: 1, max: 65_535 })).map(([h, p]) => `${h}:${p}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 1, max: 65_535 })).map(([h, p]) => `[${h}]:${p}`),
  fc.stringMatching(/^\/[a-z0-9._/-]{1,30}$/).map((path) => `unix:${path}`),
);

export const options: fc.Arbitrary<Partial<ChannelOptions>> = fc.record(
  {
    maxReceiveMessageLength: int32,
    maxSendMessageLength: int32,
    keepaliveTimeMs: int32,
    keepaliveTimeoutMs: int32,
    keepalivePermitWithoutCalls: fc.boolean(),
    maxPingsWithoutData: int32,
    maxConcurrentStreams: int32,
    compression: fc.constantFrom<Compression>('none', 'deflate', 'gzip'),
  },
  { requiredKeys: [] },
);

/** Any valid worker, built (and so validated) by workerInfo(). */
export const worker: fc.Arbitrary<WorkerInfo> = fc
  .record({
    uid: fc.uuid().filter((uid) => uid !== NIL),
    upper: fc.boolean(),
    address,
    pid: fc.integer({ min: 0, max: 2_147_483_647 }),
    version: text(),
    tags: fc.array(text(8), { maxLength: 5 }),
    extra: fc.array(fc.tuple(fc.oneof(text(8), fc.constant('__proto__')), text(16)), { maxLength: 5 }),
    secure: fc.boolean(),
    options: fc.option(options, { nil: undefined }),
  })
  .map(({ uid, upper, ...rest }) => workerInfo({ ...rest, uid: upper ? uid.toUpperCase() : uid }));
