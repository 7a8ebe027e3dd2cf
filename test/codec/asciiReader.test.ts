import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import $protobuf from 'protobufjs/minimal.js';
import { AsciiReader } from '../../src/codec/AsciiReader.js';

/** What a reader's strict string reading makes of `bytes`: the strings up to the end, or the error. */
function strings(reader: $protobuf.Reader): { values: string[]; error?: string } {
  const values: string[] = [];
  try {
    while (reader.pos < reader.len) values.push(reader.stringVerify());
    return { values };
  } catch (error) {
    return { values, error: (error as Error).message };
  }
}

/** Length-prefixed strings, as a protobuf field's value is written. */
function prefixed(texts: readonly string[]): Uint8Array {
  const writer = new $protobuf.Writer();
  for (const text of texts) writer.string(text);
  return writer.finish();
}

describe('AsciiReader', () => {
  it('reads any length-prefixed strings exactly as protobufjs does (ASCII, other Unicode, short and long)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.string({ unit: 'binary', maxLength: 70 }),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 6 }), (texts) => {
        const bytes = prefixed(texts);
        const ours = strings(new AsciiReader(bytes));
        assert.deepEqual(ours, strings(new $protobuf.Reader(bytes)));
        assert.deepEqual(
          ours.values,
          texts.map((t) => new TextDecoder().decode(new TextEncoder().encode(t))),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects what protobufjs rejects, the same way, at the same position: any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 90 }), (bytes) => {
        const ours = new AsciiReader(bytes);
        const theirs = new $protobuf.Reader(bytes);
        assert.deepEqual(strings(ours), strings(theirs));
        assert.equal(ours.pos, theirs.pos);
      }),
      { numRuns: 5000 },
    );
  });

  it('rejects invalid UTF-8 in a short string (a lone continuation byte, an overlong form)', () => {
    for (const body of [
      [0x61, 0x80],
      [0xc0, 0xaf],
      [0x61, 0x62, 0xff],
    ]) {
      const bytes = Uint8Array.of(body.length, ...body);
      assert.throws(() => new AsciiReader(bytes).stringVerify());
      assert.throws(() => new $protobuf.Reader(bytes).stringVerify());
    }
  });

  it('reads a length running past the end as an error, not a string', () => {
    const bytes = Uint8Array.of(10, 0x61, 0x62);
    assert.throws(() => new AsciiReader(bytes).stringVerify(), /index out of range/);
  });
});
