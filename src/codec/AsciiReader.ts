import $protobuf from 'protobufjs/minimal.js';

/** Strings this long or longer are left to protobufjs (its TextDecoder path builds them flat already). */
const SHORT = 64;

/**
 * One array per string length, reused: `String.fromCharCode.apply` takes
 * its arguments' count from the array's length.
 */
const CODES: number[][] = [];

/**
 * A protobufjs reader that builds a short ASCII string as one flat string.
 *
 * protobufjs reads a short string 8 bytes at a time, appending each chunk
 * (`str += String.fromCharCode(...)`): past 13 characters every append is
 * a V8 cons string, so a worker's uid or address is a tree of up to eight
 * objects that a subscriber then keeps for as long as it knows the worker.
 * Here the bytes are checked to be ASCII (the usual uid, address, version
 * and tags) and made into a string in one call; anything else is
 * protobufjs's own strict reading, invalid UTF-8 rejected as before.
 * @example
 * const message = woolrx.WorkerMetadata.decode(new AsciiReader(bytes));
 * @internal
 */
export class AsciiReader extends $protobuf.Reader {
  override stringVerify(): string {
    const start = this.pos;
    const length = this.size();
    const from = this.pos;
    const end = from + length;
    const buf = this.buf;
    if (length === 0 || length >= SHORT || end > this.len) return this.#strict(start);
    const codes = (CODES[length] ??= new Array<number>(length).fill(0));
    let any = 0;
    for (let i = 0; i < length; i += 1) {
      const byte = buf[from + i] ?? 0;
      any |= byte;
      codes[i] = byte;
    }
    if (any & 0x80) return this.#strict(start);
    this.pos = end;
    return String.fromCharCode.apply(null, codes);
  }

  /** protobufjs's strict reading, from the length prefix at `start`. */
  #strict(start: number): string {
    this.pos = start;
    return super.stringVerify();
  }
}
