import dnsPacket, { type Answer } from 'dns-packet';

/**
 * The most a response may hold, in bytes: within a 1500-byte Ethernet MTU
 * once the IP and UDP headers are added, for IPv4 and IPv6 alike, so it is
 * never fragmented (RFC 6762 §17).
 */
export const RESPONSE_BUDGET = 1440;

/** The largest DNS message, and the scratch buffer a response is written into. */
const MAX_MESSAGE = 65_535;
/** Response, authoritative answer (RFC 6762 §18.2, §18.4). */
const RESPONSE_FLAGS = 0x8400;
/** Class IN, and the cache-flush bit of a unique record (RFC 6762 §10.2). */
const CLASS_IN = 1;
const CACHE_FLUSH = 0x8000;
/** Compression pointers reach the first 16 KiB of a message only. */
const MAX_POINTER = 0x3fff;
const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const TYPE_CODES: Readonly<Record<string, number>> = { A: 1, PTR: 12, TXT: 16, SRV: 33 };
/** Where the type of a lone record named `.` starts in dns-packet's encoding: after the header and the root name. */
const LONE_TYPE_OFFSET = 12 + 1;

/** One response {@link encodeResponses} made. @internal */
export interface EncodedResponse {
  /** The DNS message. */
  readonly message: Buffer;
  /** How many of the (non-empty) bundles it holds, the next ones in order. */
  readonly bundles: number;
}

/** Writes one response: a DNS header and answers, with names compressed (RFC 1035 §4.1.4, RFC 6762 §18.14). */
class ResponseWriter {
  readonly #buffer = Buffer.allocUnsafe(MAX_MESSAGE);
  /** Each name (and suffix) written, → its offset. */
  readonly #names = new Map<string, number>();
  #offset = 12;
  #answers = 0;

  /** Starts the next response. */
  reset(): void {
    this.#names.clear();
    this.#offset = 12;
    this.#answers = 0;
  }

  get size(): number {
    return this.#offset;
  }

  get answers(): number {
    return this.#answers;
  }

  /** A point to {@link rollBack} to. */
  mark(): { readonly offset: number; readonly answers: number; readonly names: number } {
    return { offset: this.#offset, answers: this.#answers, names: this.#names.size };
  }

  /** Forgets what was written since `mark` (names are kept in insertion order, so the newest are dropped). */
  rollBack(mark: { readonly offset: number; readonly answers: number; readonly names: number }): void {
    this.#offset = mark.offset;
    this.#answers = mark.answers;
    if (this.#names.size === mark.names) return;
    const kept = [...this.#names].slice(0, mark.names);
    this.#names.clear();
    for (const [name, offset] of kept) this.#names.set(name, offset);
  }

  write(record: Answer): void {
    this.#name(record.name);
    // An A record whose data is not a dotted quad goes the generic way (dns-packet's encoding, or its error).
    const code = record.type === 'A' && !DOTTED_QUAD.test(record.data) ? undefined : TYPE_CODES[record.type];
    if (code === undefined) {
      this.#lone(record);
      this.#answers++;
      return;
    }
    this.#room(10);
    this.#buffer.writeUInt16BE(code, this.#offset);
    this.#buffer.writeUInt16BE(
      CLASS_IN | ((record as { flush?: boolean }).flush === true ? CACHE_FLUSH : 0),
      this.#offset + 2,
    );
    this.#buffer.writeUInt32BE((record as { ttl?: number }).ttl ?? 0, this.#offset + 4);
    const lengthAt = this.#offset + 8;
    this.#offset += 10;
    switch (record.type) {
      case 'PTR':
        this.#name(record.data);
        break;
      case 'SRV':
        this.#room(6);
        this.#buffer.writeUInt16BE(record.data.priority ?? 0, this.#offset);
        this.#buffer.writeUInt16BE(record.data.weight ?? 0, this.#offset + 2);
        this.#buffer.writeUInt16BE(record.data.port, this.#offset + 4);
        this.#offset += 6;
        this.#name(record.data.target);
        break;
      case 'TXT':
        for (const entry of Array.isArray(record.data) ? record.data : [record.data]) {
          const bytes = typeof entry === 'string' ? Buffer.from(entry) : entry;
          this.#room(1 + bytes.length);
          this.#buffer[this.#offset] = bytes.length;
          this.#buffer.set(bytes, this.#offset + 1);
          this.#offset += 1 + bytes.length;
        }
        break;
      case 'A': {
        const octets = record.data.split('.').map(Number);
        this.#room(octets.length);
        for (const octet of octets) this.#buffer[this.#offset++] = octet;
        break;
      }
      default:
        break;
    }
    this.#buffer.writeUInt16BE(this.#offset - lengthAt - 2, lengthAt);
    this.#answers++;
  }

  /** The response written, as a new buffer. */
  finish(): Buffer {
    this.#buffer.writeUInt16BE(0, 0);
    this.#buffer.writeUInt16BE(RESPONSE_FLAGS, 2);
    this.#buffer.writeUInt16BE(0, 4);
    this.#buffer.writeUInt16BE(this.#answers, 6);
    this.#buffer.writeUInt32BE(0, 8);
    return Buffer.from(this.#buffer.subarray(0, this.#offset));
  }

  /**
   * A record of another type: type, class, TTL and rdata as dns-packet encodes them (uncompressed), after the
   * compressed name.
   */
  #lone(record: Answer): void {
    const lone = dnsPacket.encode({ type: 'response', answers: [{ ...record, name: '.' }] });
    const rest = lone.subarray(LONE_TYPE_OFFSET);
    this.#room(rest.length);
    this.#buffer.set(rest, this.#offset);
    this.#offset += rest.length;
  }

  /** A name: its labels up to the longest suffix already written, then a pointer to it. */
  #name(name: string): void {
    const labels = name.replace(/^\.|\.$/g, '');
    let rest = labels;
    while (rest.length > 0) {
      const at = this.#names.get(rest);
      if (at !== undefined) {
        this.#room(2);
        this.#buffer.writeUInt16BE(0xc000 | at, this.#offset);
        this.#offset += 2;
        return;
      }
      if (this.#offset <= MAX_POINTER) this.#names.set(rest, this.#offset);
      const dot = rest.indexOf('.');
      const label = dot < 0 ? rest : rest.slice(0, dot);
      const length = Buffer.byteLength(label);
      this.#room(1 + length);
      this.#buffer[this.#offset] = length;
      this.#buffer.write(label, this.#offset + 1);
      this.#offset += 1 + length;
      rest = dot < 0 ? '' : rest.slice(dot + 1);
    }
    this.#room(1);
    this.#buffer[this.#offset++] = 0;
  }

  #room(bytes: number): void {
    if (this.#offset + bytes > MAX_MESSAGE) throw new RangeError(`an mDNS response would exceed ${MAX_MESSAGE} bytes`);
  }
}

/**
 * Encodes bundles of records (one worker's records each) into as few
 * responses as fit `budget` bytes, names compressed, in order, never
 * splitting a bundle: a peer that gets a packet gets every record of the
 * workers in it, and needs no follow-up query for them. A bundle larger
 * than the budget travels alone.
 * @internal
 * @param bundles The records to send, a bundle per worker.
 * @param budget The size a response stays within, in bytes.
 * @returns The responses, encoded (DNS id 0, authoritative, every record an answer), each with how many bundles it
 * holds.
 * @throws {RangeError} When one bundle does not fit a DNS message (64 KiB).
 */
export function encodeResponses(bundles: readonly (readonly Answer[])[], budget = RESPONSE_BUDGET): EncodedResponse[] {
  const packets: EncodedResponse[] = [];
  const writer = new ResponseWriter();
  let held = 0;
  for (const bundle of bundles) {
    if (bundle.length === 0) continue;
    const mark = writer.mark();
    for (const record of bundle) writer.write(record);
    if (writer.size <= budget || held === 0) {
      held++;
      continue;
    }
    writer.rollBack(mark);
    packets.push({ message: writer.finish(), bundles: held });
    writer.reset();
    for (const record of bundle) writer.write(record);
    held = 1;
  }
  if (held > 0) packets.push({ message: writer.finish(), bundles: held });
  return packets;
}
