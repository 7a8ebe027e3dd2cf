/**
 * The `range_end` that makes an etcd range cover every key starting with
 * `prefix`: the prefix with its last byte below 0xff incremented (what
 * `etcdctl get --prefix` sends).
 * @param prefix The key prefix (non-empty).
 * @returns The exclusive end of the range.
 * @internal
 */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    const byte = end[i] as number;
    if (byte < 0xff) {
      end[i] = byte + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every byte is 0xff: the range runs to the end of the keyspace.
  return Buffer.from([0]);
}
