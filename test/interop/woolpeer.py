#!/usr/bin/env python3
"""woolpeer: an independent peer that speaks wool's same-host discovery format.

Why this file exists: woolrx must interoperate with wool (the Python runtime),
but wool itself cannot be installed on the machines that run these tests: PyPI
is unreachable from them. So this peer implements wool's *format* from its
written description (the project's wool wire notes and golden vectors), with
the Python standard library only (3.11+), and none of woolrx's code:

- short_hash(s): SHA-256 of the UTF-8 bytes, URL-safe base64 without padding,
  first 30 characters.
- Namespace segment: POSIX shared memory "/" + short_hash(namespace), mode 0600,
  created exclusively by the first entrant, size 16 + 16 * capacity. Header:
  b"WLD1", capacity as u32 LE, 8 zero bytes. Then `capacity` 16-byte slots,
  each the raw bytes of a registered worker's UUID; all zeros is free.
- Worker block: POSIX shared memory "/" + short_hash(uuid hex, no hyphens),
  size block_size (1024): u32 payload length (native order) + protobuf
  WorkerMetadata (hand-written encoder/decoder below).
- Lock: flock(2) LOCK_EX on <realpath(tmpdir)>/wool-lock-<short_hash(ns)>
  around every read-modify-write.
- Notification: touch <realpath(tmpdir)>/wool-<namespace>/notify after each
  change.

multiprocessing.shared_memory.SharedMemory registers every segment it opens
(even when only attaching) with the resource tracker, which unlinks them when
the process exits; we unregister at once and unlink explicitly. Python prepends
the "/" to the name itself.

Commands (output for tests; one JSON object per line, woolrx's WorkerInfo
shape: camelCase options, compression as "none" | "deflate" | "gzip"):

  publish --namespace NS --uid U --address A --pid P --version V
          [--tag T]... [--extra K=V]... [--secure] [--option NAME=INT]...
          [--capacity N] [--block-size N] [--unlink-segment-on-exit]
      Registers the worker (refreshes it in place if its uid is registered),
      prints "ready", waits for EOF on stdin or SIGTERM/SIGINT, then clears its
      slot, unlinks its block and exits 0. With --unlink-segment-on-exit it
      also unlinks the segment if it created it, as wool's owner does.
  publish-many --namespace NS --count N --pid P [--capacity N] [--block-size N]
          [--unlink-segment-on-exit]
      Makes N workers with fresh uids (address 127.0.0.1:<20000+i>, version
      "1.0.0"), prints {"uids": [...]} and "started", waits for one line on
      stdin ("go"), then registers them one by one, each in its own locked
      read-modify-write followed by a notify touch, as wool's publishers do;
      prints "ready", waits for EOF, withdraws them all and exits 0.
  hold-lock --namespace NS
      Takes wool's flock (blocking), prints "locked", holds it until EOF on
      stdin, then releases it and exits 0.
  try-lock --namespace NS
      One non-blocking attempt at wool's flock: prints "busy" if another
      process holds it, else "free" (releasing it at once); exits 0.
  scan --namespace NS
      Prints the registered workers, one JSON line each, in slot order.
  selftest --vectors PATH
      Checks short_hash and the protobuf codec against wool's golden vectors.

Exit status: 0 ok, 1 failure (message on stderr), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import base64
import errno
import fcntl
import hashlib
import json
import os
import signal
import struct
import sys
import tempfile
import uuid as uuidlib
from multiprocessing import resource_tracker, shared_memory

import _posixshmem  # the stdlib's shm_open/shm_unlink (POSIX only)

MAGIC = b"WLD1"
HEADER_SIZE = 16
SLOT_SIZE = 16
FREE_SLOT = bytes(SLOT_SIZE)
DEFAULT_CAPACITY = 128
DEFAULT_BLOCK_SIZE = 1024

# ChannelOptions: (field number, wool name, woolrx name, kind, default)
OPTION_FIELDS = [
    (1, "max_receive_message_length", "maxReceiveMessageLength", "int32", 104857600),
    (2, "max_send_message_length", "maxSendMessageLength", "int32", 104857600),
    (3, "keepalive_time_ms", "keepaliveTimeMs", "int32", 30000),
    (4, "keepalive_timeout_ms", "keepaliveTimeoutMs", "int32", 30000),
    (5, "keepalive_permit_without_calls", "keepalivePermitWithoutCalls", "bool", True),
    (6, "max_pings_without_data", "maxPingsWithoutData", "int32", 2),
    (7, "max_concurrent_streams", "maxConcurrentStreams", "int32", 100),
    (8, "compression", "compression", "int32", 0),
]
DEFAULT_OPTIONS = {name: default for _, name, _, _, default in OPTION_FIELDS}
COMPRESSIONS = {0: "none", 1: "deflate", 2: "gzip"}


# ---------------------------------------------------------------- names


def short_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")[:30]


def segment_name(namespace: str) -> str:
    return short_hash(namespace)


def block_name(uid: str) -> str:
    return short_hash(uuidlib.UUID(uid).hex)


def tmp_root() -> str:
    return os.path.realpath(tempfile.gettempdir())


def lock_path(namespace: str) -> str:
    return os.path.join(tmp_root(), f"wool-lock-{short_hash(namespace)}")


def notify_path(namespace: str) -> str:
    return os.path.join(tmp_root(), f"wool-{namespace}", "notify")


# ---------------------------------------------------------------- protobuf


class DecodeError(ValueError):
    pass


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32 is sign-extended to 64 bits
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return _varint(field << 3 | wire_type)


def _len_delimited(field: int, payload: bytes) -> bytes:
    return _key(field, 2) + _varint(len(payload)) + payload


def _string(field: int, text: str) -> bytes:
    # proto3: a scalar equal to its default is not written
    return _len_delimited(field, text.encode("utf-8")) if text else b""


def _int32(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value) if value else b""


def _bool(field: int, value: bool) -> bytes:
    return _key(field, 0) + b"\x01" if value else b""


def encode_options(options: dict) -> bytes:
    out = b""
    for number, name, _, kind, _ in OPTION_FIELDS:
        value = options[name]
        out += _bool(number, value) if kind == "bool" else _int32(number, value)
    return out


def encode_worker(worker: dict) -> bytes:
    """WorkerMetadata; `worker` uses wool's names (options snake_case, compression int)."""
    out = _string(1, worker["uid"])
    out += _string(2, worker["address"])
    out += _int32(3, worker["pid"])
    out += _string(4, worker["version"])
    for tag in worker["tags"]:  # repeated: every element is written
        out += _len_delimited(5, tag.encode("utf-8"))
    for key in sorted(worker["extra"]):  # map entry: key = 1, value = 2
        entry = _len_delimited(1, key.encode("utf-8")) + _len_delimited(2, worker["extra"][key].encode("utf-8"))
        out += _len_delimited(6, entry)
    out += _bool(7, worker["secure"])
    out += _len_delimited(8, encode_options(worker["options"]))  # wool always writes it
    return out


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise DecodeError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result & ((1 << 64) - 1), pos
        shift += 7
        if shift >= 70:
            raise DecodeError("varint longer than 10 bytes")


def _fields(data: bytes):
    """Yields (field number, wire type, value) for each field of a message."""
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        field, wire_type = key >> 3, key & 7
        if field == 0:
            raise DecodeError("field number 0")
        if wire_type == 0:
            value, pos = _read_varint(data, pos)
        elif wire_type == 1:
            if pos + 8 > len(data):
                raise DecodeError("truncated fixed64")
            value, pos = data[pos : pos + 8], pos + 8
        elif wire_type == 2:
            length, pos = _read_varint(data, pos)
            if pos + length > len(data):
                raise DecodeError("length-delimited field runs past the end")
            value, pos = data[pos : pos + length], pos + length
        elif wire_type == 5:
            if pos + 4 > len(data):
                raise DecodeError("truncated fixed32")
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise DecodeError(f"unsupported wire type {wire_type}")
        yield field, wire_type, value


def _as_int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _text(wire_type: int, value, what: str) -> str:
    if wire_type != 2:
        raise DecodeError(f"{what}: wrong wire type {wire_type}")
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError as error:
        raise DecodeError(f"{what}: invalid UTF-8") from error


def _scalar(wire_type: int, value, what: str) -> int:
    if wire_type != 0:
        raise DecodeError(f"{what}: wrong wire type {wire_type}")
    return value


def decode_worker(data: bytes) -> dict:
    """The inverse of encode_worker; unknown fields are skipped (proto3)."""
    worker = {"uid": "", "address": "", "pid": 0, "version": "", "tags": [], "extra": {}, "secure": False}
    options = None
    for field, wire_type, value in _fields(data):
        if field == 1:
            worker["uid"] = _text(wire_type, value, "uid")
        elif field == 2:
            worker["address"] = _text(wire_type, value, "address")
        elif field == 3:
            worker["pid"] = _as_int32(_scalar(wire_type, value, "pid"))
        elif field == 4:
            worker["version"] = _text(wire_type, value, "version")
        elif field == 5:
            worker["tags"].append(_text(wire_type, value, "tag"))
        elif field == 6:
            if wire_type != 2:
                raise DecodeError("extra: wrong wire type")
            key, val = "", ""
            for f, wt, v in _fields(value):
                if f == 1:
                    key = _text(wt, v, "extra key")
                elif f == 2:
                    val = _text(wt, v, "extra value")
            worker["extra"][key] = val
        elif field == 7:
            worker["secure"] = _scalar(wire_type, value, "secure") != 0
        elif field == 8:
            if wire_type != 2:
                raise DecodeError("connection: wrong wire type")
            if options is None:  # present: absent fields are proto3 zeros
                options = {name: (False if kind == "bool" else 0) for _, name, _, kind, _ in OPTION_FIELDS}
            by_number = {number: (name, kind) for number, name, _, kind, _ in OPTION_FIELDS}
            for f, wt, v in _fields(value):  # repeated occurrences merge
                if f in by_number:
                    name, kind = by_number[f]
                    v = _scalar(wt, v, name)
                    options[name] = (v != 0) if kind == "bool" else _as_int32(v)
    # absent connection means wool's defaults, not zeros
    worker["options"] = dict(DEFAULT_OPTIONS) if options is None else options
    return worker


def to_woolrx_json(worker: dict) -> dict:
    """wool's names → woolrx's WorkerInfo JSON shape."""
    options = {}
    for _, name, rx_name, _, _ in OPTION_FIELDS:
        value = worker["options"][name]
        if name == "compression":
            value = COMPRESSIONS.get(value, value)
        options[rx_name] = value
    return {
        "uid": worker["uid"],
        "address": worker["address"],
        "pid": worker["pid"],
        "version": worker["version"],
        "tags": sorted(set(worker["tags"])),
        "extra": dict(sorted(worker["extra"].items())),
        "secure": worker["secure"],
        "options": options,
    }


# ---------------------------------------------------------------- shared memory


def _untrack(shm: shared_memory.SharedMemory) -> shared_memory.SharedMemory:
    # SharedMemory registers even on attach; the tracker would unlink at exit.
    resource_tracker.unregister(shm._name, "shared_memory")  # noqa: SLF001
    return shm


def attach(name: str) -> shared_memory.SharedMemory | None:
    try:
        return _untrack(shared_memory.SharedMemory(name=name))
    except FileNotFoundError:
        return None
    except ValueError:  # size 0: its creator has not sized it yet
        return None


def create(name: str, size: int) -> shared_memory.SharedMemory | None:
    """Creates exclusively (mode 0600); None if it already exists."""
    try:
        return _untrack(shared_memory.SharedMemory(name=name, create=True, size=size))
    except FileExistsError:
        return None


def unlink(name: str) -> None:
    try:
        _posixshmem.shm_unlink("/" + name)
    except FileNotFoundError:
        pass


class Segment:
    def __init__(self, shm: shared_memory.SharedMemory, created: bool):
        self.shm = shm
        self.created = created

    @property
    def ready(self) -> bool:
        return len(self.shm.buf) >= HEADER_SIZE and bytes(self.shm.buf[0:4]) == MAGIC

    @property
    def capacity(self) -> int:
        capacity = struct.unpack_from("<I", self.shm.buf, 4)[0]
        if HEADER_SIZE + SLOT_SIZE * capacity > len(self.shm.buf):
            raise RuntimeError(f"segment header says capacity {capacity}, larger than the segment")
        return capacity

    def slot(self, index: int) -> bytes:
        start = HEADER_SIZE + SLOT_SIZE * index
        return bytes(self.shm.buf[start : start + SLOT_SIZE])

    def set_slot(self, index: int, raw: bytes) -> None:
        start = HEADER_SIZE + SLOT_SIZE * index
        self.shm.buf[start : start + SLOT_SIZE] = raw

    def close(self) -> None:
        self.shm.close()


def open_segment(namespace: str, create_capacity: int | None) -> Segment | None:
    name = segment_name(namespace)
    shm = attach(name)
    if shm is not None:
        return Segment(shm, created=False)
    if create_capacity is None:
        return None
    shm = create(name, HEADER_SIZE + SLOT_SIZE * create_capacity)
    if shm is None:  # lost the race: someone else is the owner
        shm = attach(name)
        return None if shm is None else Segment(shm, created=False)
    shm.buf[4:8] = struct.pack("<I", create_capacity)
    shm.buf[8:16] = bytes(8)
    shm.buf[0:4] = MAGIC  # last: the segment is ready
    return Segment(shm, created=True)


def read_block(uid: str) -> dict:
    shm = attach(block_name(uid))
    if shm is None:
        raise RuntimeError(f"worker {uid}: no block {block_name(uid)}")
    try:
        size = len(shm.buf)
        if size < 4:
            raise DecodeError(f"worker {uid}: block of {size} bytes")
        length = struct.unpack_from("=I", shm.buf, 0)[0]
        if length > size - 4:
            raise DecodeError(f"worker {uid}: length {length} exceeds the block ({size} bytes)")
        return decode_worker(bytes(shm.buf[4 : 4 + length]))
    finally:
        shm.close()


def write_block(uid: str, payload: bytes, block_size: int) -> None:
    name = block_name(uid)
    shm = attach(name) or create(name, block_size) or attach(name)
    if shm is None:
        raise RuntimeError(f"worker {uid}: cannot open block {name}")
    try:
        if 4 + len(payload) > len(shm.buf):
            raise RuntimeError(f"worker {uid}: payload of {len(payload)} bytes exceeds the block ({len(shm.buf)})")
        shm.buf[4 : 4 + len(payload)] = payload
        shm.buf[0:4] = struct.pack("=I", len(payload))
    finally:
        shm.close()


def open_lock_file(namespace: str) -> int:
    return os.open(lock_path(namespace), os.O_RDWR | os.O_CREAT, 0o600)


class NamespaceLock:
    """wool's lock: flock(2) on <realpath(tmpdir)>/wool-lock-<short_hash(ns)>.

    Like wool, it does not re-check after flock() that the path still names
    the file it opened.
    """

    def __init__(self, namespace: str):
        self.namespace = namespace

    def __enter__(self):
        self.fd = open_lock_file(self.namespace)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def notify(namespace: str) -> None:
    path = notify_path(namespace)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a"):
        pass
    os.utime(path)


# ---------------------------------------------------------------- commands


class Stop(Exception):
    pass


def _on_signal(signum, frame):
    raise Stop()


def publish(args) -> int:
    options = dict(DEFAULT_OPTIONS)
    for pair in args.option:
        name, sep, value = pair.partition("=")
        if not sep or name not in options:
            raise SystemExit(f"woolpeer: bad --option {pair!r}")
        options[name] = value.lower() in ("1", "true") if name == "keepalive_permit_without_calls" else int(value)
    extra = {}
    for pair in args.extra:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"woolpeer: bad --extra {pair!r}")
        extra[key] = value
    uid = str(uuidlib.UUID(args.uid))
    worker = {
        "uid": uid,
        "address": args.address,
        "pid": args.pid,
        "version": args.version,
        "tags": list(dict.fromkeys(args.tag)),
        "extra": extra,
        "secure": args.secure,
        "options": options,
    }
    payload = encode_worker(worker)
    raw = uuidlib.UUID(uid).bytes

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    segment = None
    try:
        with NamespaceLock(args.namespace):
            segment = open_segment(args.namespace, args.capacity)
            if segment is None or not segment.ready:
                raise RuntimeError(f"namespace {args.namespace!r}: segment not ready")
            capacity = segment.capacity
            slots = [segment.slot(i) for i in range(capacity)]
            write_block(uid, payload, args.block_size)  # block first, then the slot
            if raw not in slots:
                if FREE_SLOT not in slots:
                    unlink(block_name(uid))
                    raise RuntimeError(f"namespace {args.namespace!r} is full (capacity {capacity})")
                segment.set_slot(slots.index(FREE_SLOT), raw)
        notify(args.namespace)
        print("ready", flush=True)
        try:
            sys.stdin.buffer.read()  # until EOF
        except Stop:
            pass
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with NamespaceLock(args.namespace):
            for i in range(segment.capacity):
                if segment.slot(i) == raw:
                    segment.set_slot(i, FREE_SLOT)
            unlink(block_name(uid))
        notify(args.namespace)
        if args.unlink_segment_on_exit and segment.created:
            unlink(segment_name(args.namespace))
        return 0
    except Stop:
        return 0
    finally:
        if segment is not None:
            segment.close()


def publish_many(args) -> int:
    workers = []
    for i in range(args.count):
        uid = str(uuidlib.uuid4())
        worker = {
            "uid": uid,
            "address": f"127.0.0.1:{20000 + i}",
            "pid": args.pid,
            "version": "1.0.0",
            "tags": [],
            "extra": {},
            "secure": False,
            "options": dict(DEFAULT_OPTIONS),
        }
        workers.append((uid, uuidlib.UUID(uid).bytes, encode_worker(worker)))
    print(json.dumps({"uids": [uid for uid, _, _ in workers]}), flush=True)
    print("started", flush=True)
    sys.stdin.buffer.readline()  # "go"
    segment = None
    try:
        for uid, raw, payload in workers:
            with NamespaceLock(args.namespace):
                if segment is None:
                    segment = open_segment(args.namespace, args.capacity)
                if segment is None or not segment.ready:
                    raise RuntimeError(f"namespace {args.namespace!r}: segment not ready")
                capacity = segment.capacity
                slots = [segment.slot(i) for i in range(capacity)]
                if raw in slots:
                    raise RuntimeError(f"worker {uid} registered twice")
                if FREE_SLOT not in slots:
                    raise RuntimeError(f"namespace {args.namespace!r} is full (capacity {capacity})")
                write_block(uid, payload, args.block_size)
                segment.set_slot(slots.index(FREE_SLOT), raw)
            notify(args.namespace)
        print("ready", flush=True)
        sys.stdin.buffer.read()  # until EOF
        with NamespaceLock(args.namespace):
            mine = {raw for _, raw, _ in workers}
            for i in range(segment.capacity):
                if segment.slot(i) in mine:
                    segment.set_slot(i, FREE_SLOT)
            for uid, _, _ in workers:
                unlink(block_name(uid))
        notify(args.namespace)
        if args.unlink_segment_on_exit and segment.created:
            unlink(segment_name(args.namespace))
        return 0
    except BaseException:
        for uid, _, _ in workers:  # leave no block behind on failure
            unlink(block_name(uid))
        raise
    finally:
        if segment is not None:
            segment.close()


def hold_lock(args) -> int:
    with NamespaceLock(args.namespace):
        print("locked", flush=True)
        sys.stdin.buffer.read()  # until EOF
    return 0


def try_lock(args) -> int:
    fd = open_lock_file(args.namespace)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("busy", flush=True)
            return 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        print("free", flush=True)
        return 0
    finally:
        os.close(fd)


def scan(args) -> int:
    segment = open_segment(args.namespace, None)
    if segment is None:
        return 0
    try:
        if not segment.ready:
            return 0
        for i in range(segment.capacity):
            raw = segment.slot(i)
            if raw == FREE_SLOT:
                continue
            uid = str(uuidlib.UUID(bytes=raw))
            try:
                worker = read_block(uid)
            except (DecodeError, RuntimeError) as error:
                print(f"woolpeer: slot {i}: {error}", file=sys.stderr)
                continue
            print(json.dumps(to_woolrx_json(worker), ensure_ascii=False), flush=True)
        return 0
    finally:
        segment.close()


def selftest(args) -> int:
    with open(args.vectors, encoding="utf-8") as handle:
        vectors = json.load(handle)
    checks = 0
    for entry in vectors["names"]:
        if "input" in entry:
            assert short_hash(entry["input"]) == entry["short_hash"], entry
        else:
            assert uuidlib.UUID(entry["input_uuid"]).hex == entry["hex"], entry
            assert block_name(entry["input_uuid"]) == entry["block_name"], entry
            assert uuidlib.UUID(entry["input_uuid"]).bytes.hex() == entry["slot_bytes_hex"], entry
        checks += 1
    for entry in vectors["metadata"]:
        expected = {key: entry[key] for key in ("uid", "address", "pid", "version", "tags", "extra", "secure", "options")}
        wire = bytes.fromhex(entry["protobuf_hex"])
        decoded = decode_worker(wire)
        assert decoded == expected, (decoded, expected)
        encoded = encode_worker(expected)
        if len(expected["extra"]) < 2:
            assert encoded == wire, (encoded.hex(), entry["protobuf_hex"])
        assert decode_worker(encoded) == expected
        checks += 1
    # a message without `connection` means the defaults; with an empty one, zeros
    bare = decode_worker(_string(1, "x"))
    assert bare["options"] == DEFAULT_OPTIONS, bare
    zeros = decode_worker(_len_delimited(8, b""))
    assert zeros["options"]["max_receive_message_length"] == 0 and zeros["options"]["keepalive_permit_without_calls"] is False
    # negative int32 round-trips through a 10-byte varint
    negative = dict(expected, pid=-5)
    assert len(_varint(-5)) == 10 and decode_worker(encode_worker(negative))["pid"] == -5
    # unknown fields are skipped; truncation is an error
    assert decode_worker(_key(99, 0) + _varint(7) + _key(98, 5) + b"abcd" + _string(1, "u"))["uid"] == "u"
    for bad in (b"\x0a\x05ab", b"\x18", b"\x0b"):
        try:
            decode_worker(bad)
        except DecodeError:
            pass
        else:
            raise AssertionError(f"decoded malformed {bad.hex()}")
    checks += 4
    # byte layouts of the segment and block examples
    seg = vectors["segment_example"]
    capacity = seg["capacity"]
    image = bytearray(HEADER_SIZE + SLOT_SIZE * capacity)
    image[0:4] = MAGIC
    image[4:8] = struct.pack("<I", capacity)
    image[HEADER_SIZE + SLOT_SIZE : HEADER_SIZE + 2 * SLOT_SIZE] = uuidlib.UUID(vectors["metadata"][0]["uid"]).bytes
    assert image.hex() == seg["hex"], image.hex()
    blk = vectors["block_example"]
    payload = encode_worker({k: vectors["metadata"][0][k] for k in expected})
    block = bytearray(blk["block_size"])
    block[0:4] = struct.pack("=I", len(payload))
    block[4 : 4 + len(payload)] = payload
    assert block.hex() == blk["hex"], block.hex()
    checks += 2
    print(f"ok {checks} checks")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="woolpeer", description="wool same-host format peer (tests)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("publish")
    p.add_argument("--namespace", required=True)
    p.add_argument("--uid", required=True)
    p.add_argument("--address", required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--extra", action="append", default=[])
    p.add_argument("--secure", action="store_true")
    p.add_argument("--option", action="append", default=[])
    p.add_argument("--capacity", type=int, default=DEFAULT_CAPACITY)
    p.add_argument("--block-size", type=int, default=DEFAULT_BLOCK_SIZE)
    p.add_argument("--unlink-segment-on-exit", action="store_true")
    m = sub.add_parser("publish-many")
    m.add_argument("--namespace", required=True)
    m.add_argument("--count", type=int, required=True)
    m.add_argument("--pid", type=int, required=True)
    m.add_argument("--capacity", type=int, default=DEFAULT_CAPACITY)
    m.add_argument("--block-size", type=int, default=DEFAULT_BLOCK_SIZE)
    m.add_argument("--unlink-segment-on-exit", action="store_true")
    h = sub.add_parser("hold-lock")
    h.add_argument("--namespace", required=True)
    r = sub.add_parser("try-lock")
    r.add_argument("--namespace", required=True)
    s = sub.add_parser("scan")
    s.add_argument("--namespace", required=True)
    t = sub.add_parser("selftest")
    t.add_argument("--vectors", required=True)
    args = parser.parse_args(argv)
    try:
        commands = {
            "publish": publish,
            "publish-many": publish_many,
            "hold-lock": hold_lock,
            "try-lock": try_lock,
            "scan": scan,
            "selftest": selftest,
        }
        return commands[args.command](args)
    except (RuntimeError, DecodeError, OSError) as error:
        print(f"woolpeer: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
