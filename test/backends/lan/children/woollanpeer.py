#!/usr/bin/env python3
"""woollanpeer: an independent peer speaking wool's LAN (mDNS / DNS-SD) format.

wool (and its zeroconf dependency) cannot be installed where these tests run
(PyPI is unreachable), so this peer implements wool's *format* from its
written description (the wool wire notes), with the Python standard library
only and none of woolrx's code. It behaves as wool's zeroconf-based services
do on the wire:

- service type "_wool-" + md5(namespace)[:6] + "._tcp.local."; instance
  "<uid>.<type>"; the SRV target is the instance name itself (zeroconf's
  default server); A record at that name; TXT pid, version, tags (json.dumps
  list, bare key when empty), extra (json.dumps dict, bare key when empty),
  secure ("true"/"false").
- publish: announces PTR + SRV + TXT + A (unique records with cache-flush),
  answers queries for the type, the instance and the server name; on EOF of
  stdin sends goodbyes (TTL 0) and exits.
- browse: queries the PTR (and the SRV/TXT/A of instances it lacks), and
  reports workers as wool's decoder would: pid and version required, host
  from the first IPv4 address.

Run only inside a network namespace (the LAN tests do): it binds UDP 5353
and joins 224.0.0.251. Output: one JSON object per line.

  publish NAMESPACE UID IPV4 PORT PID VERSION TAGS_JSON EXTRA_JSON SECURE
  browse NAMESPACE
"""

from __future__ import annotations

import hashlib
import json
import select
import socket
import struct
import sys
import time

GROUP = "224.0.0.251"
PORT = 5353
T_A, T_PTR, T_TXT, T_SRV, T_ANY = 1, 12, 16, 33, 255
CLASS_IN = 1
FLUSH = 0x8000


def out(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def service_type(namespace: str) -> str:
    return "_wool-" + hashlib.md5(namespace.encode("utf-8")).hexdigest()[:6] + "._tcp.local"


def encode_name(name: str) -> bytes:
    data = b""
    for label in name.rstrip(".").split("."):
        raw = label.encode("utf-8")
        data += bytes((len(raw),)) + raw
    return data + b"\x00"


def decode_name(packet: bytes, offset: int) -> tuple[str, int]:
    labels: list[str] = []
    end = None
    hops = 0
    while True:
        length = packet[offset]
        if length & 0xC0 == 0xC0:
            pointer = struct.unpack_from("!H", packet, offset)[0] & 0x3FFF
            if end is None:
                end = offset + 2
            offset = pointer
            hops += 1
            if hops > 64:
                raise ValueError("name compression loop")
            continue
        offset += 1
        if length == 0:
            break
        labels.append(packet[offset : offset + length].decode("utf-8", "replace"))
        offset += length
    return ".".join(labels), (end if end is not None else offset)


def record(name: str, rtype: int, ttl: int, rdata: bytes, flush: bool) -> bytes:
    klass = CLASS_IN | (FLUSH if flush else 0)
    return encode_name(name) + struct.pack("!HHIH", rtype, klass, ttl, len(rdata)) + rdata


def txt_rdata(properties: dict[str, str | None]) -> bytes:
    data = b""
    for key, value in properties.items():
        item = key.encode("utf-8") if value is None else (key + "=" + value).encode("utf-8")
        data += bytes((len(item),)) + item
    return data


def message(flags: int, questions: list[bytes], answers: list[bytes]) -> bytes:
    return struct.pack("!HHHHHH", 0, flags, len(questions), len(answers), 0, 0) + b"".join(questions + answers)


def question(name: str, qtype: int) -> bytes:
    return encode_name(name) + struct.pack("!HH", qtype, CLASS_IN)


def parse(packet: bytes) -> tuple[int, list[tuple[str, int]], list[dict]]:
    _id, flags, qd, an, ns, ar = struct.unpack_from("!HHHHHH", packet, 0)
    offset = 12
    questions = []
    for _ in range(qd):
        name, offset = decode_name(packet, offset)
        qtype, _klass = struct.unpack_from("!HH", packet, offset)
        offset += 4
        questions.append((name.lower(), qtype))
    records = []
    for _ in range(an + ns + ar):
        name, offset = decode_name(packet, offset)
        rtype, _klass, ttl, length = struct.unpack_from("!HHIH", packet, offset)
        offset += 10
        rdata_at = offset
        offset += length
        entry: dict = {"name": name.lower(), "type": rtype, "ttl": ttl}
        if rtype == T_PTR:
            entry["data"] = decode_name(packet, rdata_at)[0].lower()
        elif rtype == T_SRV:
            _prio, _weight, port = struct.unpack_from("!HHH", packet, rdata_at)
            entry["data"] = {"port": port, "target": decode_name(packet, rdata_at + 6)[0].lower()}
        elif rtype == T_A and length == 4:
            entry["data"] = socket.inet_ntoa(packet[rdata_at : rdata_at + 4])
        elif rtype == T_TXT:
            props: dict[str, str | None] = {}
            at = rdata_at
            while at < rdata_at + length:
                size = packet[at]
                item = packet[at + 1 : at + 1 + size]
                at += 1 + size
                if not item:
                    continue
                key, sep, value = item.partition(b"=")
                props.setdefault(key.decode("ascii", "replace").lower(), value.decode("utf-8", "replace") if sep else None)
            entry["data"] = props
        else:
            continue
        records.append(entry)
    return flags, questions, records


def open_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("", PORT))
    membership = socket.inet_aton(GROUP) + socket.inet_aton("0.0.0.0")
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
    return sock


def stdin_closed(timeout: float, sock: socket.socket) -> tuple[bool, bytes | None]:
    readable, _, _ = select.select([sys.stdin, sock], [], [], timeout)
    if sys.stdin in readable and sys.stdin.readline() == "":
        return True, None
    if sock in readable:
        return False, sock.recv(9000)
    return False, None


def publish(args: list[str]) -> None:
    namespace, uid, ipv4, port, pid, version, tags_json, extra_json, secure = args
    stype = service_type(namespace)
    instance = f"{uid}.{stype}"
    tags = json.loads(tags_json)
    extra = json.loads(extra_json)
    properties = {
        "pid": str(int(pid)),
        "version": version,
        "tags": json.dumps(tags) if tags else None,
        "extra": json.dumps(extra) if extra else None,
        "secure": "true" if secure == "true" else "false",
    }

    def records(ttl_ptr: int, ttl_host: int) -> dict[str, bytes]:
        return {
            "ptr": record(stype, T_PTR, ttl_ptr, encode_name(instance), False),
            "srv": record(instance, T_SRV, ttl_host, struct.pack("!HHH", 0, 0, int(port)) + encode_name(instance), True),
            "txt": record(instance, T_TXT, ttl_ptr, txt_rdata(properties), True),
            "a": record(instance, T_A, ttl_host, socket.inet_aton(ipv4), True),
        }

    sock = open_socket()
    live = records(4500, 120)
    everything = [live["ptr"], live["srv"], live["txt"], live["a"]]
    sock.sendto(message(0x8400, [], everything), (GROUP, PORT))
    out({"ev": "published", "uid": uid})
    while True:
        closed, packet = stdin_closed(1.0, sock)
        if closed:
            gone = records(0, 0)
            sock.sendto(message(0x8400, [], [gone["ptr"], gone["srv"], gone["txt"], gone["a"]]), (GROUP, PORT))
            out({"ev": "goodbye"})
            return
        if packet is None:
            continue
        try:
            flags, questions, _records = parse(packet)
        except (ValueError, IndexError, struct.error):
            continue
        if flags & 0x8000:
            continue
        answers: list[bytes] = []
        for name, qtype in questions:
            if name == stype.lower() and qtype in (T_PTR, T_ANY):
                answers += everything
            elif name == instance.lower():
                answers += [rec for key, rec in live.items() if key != "ptr" and qtype in (T_ANY, {"srv": T_SRV, "txt": T_TXT, "a": T_A}[key])]
        if answers:
            sock.sendto(message(0x8400, [], answers), (GROUP, PORT))


def browse(args: list[str]) -> None:
    (namespace,) = args
    stype = service_type(namespace).lower()
    sock = open_socket()
    ptrs: set[str] = set()
    srv: dict[str, dict] = {}
    txt: dict[str, dict] = {}
    addresses: dict[str, str] = {}
    reported: dict[str, str] = {}
    sock.sendto(message(0, [question(stype, T_PTR)], []), (GROUP, PORT))
    out({"ev": "browsing"})
    last_query = time.monotonic()
    while True:
        closed, packet = stdin_closed(0.5, sock)
        if closed:
            return
        if time.monotonic() - last_query > 2:
            last_query = time.monotonic()
            sock.sendto(message(0, [question(stype, T_PTR)], []), (GROUP, PORT))
        if packet is None:
            continue
        try:
            flags, _questions, records = parse(packet)
        except (ValueError, IndexError, struct.error):
            continue
        if not flags & 0x8000:
            continue
        touched: set[str] = set()
        for rec in records:
            if rec["type"] == T_PTR and rec["name"] == stype:
                if rec["ttl"] == 0:
                    ptrs.discard(rec["data"])
                    if reported.pop(rec["data"], None) is not None:
                        out({"ev": "removed", "uid": rec["data"].split(".")[0]})
                else:
                    ptrs.add(rec["data"])
                    touched.add(rec["data"])
            elif rec["type"] == T_SRV and rec["ttl"] > 0:
                srv[rec["name"]] = rec["data"]
                touched.add(rec["name"])
            elif rec["type"] == T_TXT and rec["ttl"] > 0:
                txt[rec["name"]] = rec["data"]
                touched.add(rec["name"])
            elif rec["type"] == T_A and rec["ttl"] > 0:
                addresses[rec["name"]] = rec["data"]
                touched.update(name for name, s in srv.items() if s["target"] == rec["name"])
        for name in touched:
            if name not in ptrs:
                continue
            if name not in srv or name not in txt:
                sock.sendto(message(0, [question(name, T_SRV), question(name, T_TXT)], []), (GROUP, PORT))
                continue
            target = srv[name]["target"]
            if target not in addresses:
                sock.sendto(message(0, [question(target, T_A)], []), (GROUP, PORT))
                continue
            props = txt[name]
            if not props.get("pid") or not props.get("version"):
                continue  # wool: not a worker
            worker = {
                "uid": name.split(".")[0],
                "address": f"{addresses[target]}:{srv[name]['port']}",
                "pid": int(props["pid"]),
                "version": props["version"],
                "tags": sorted(json.loads(props["tags"])) if props.get("tags") else [],
                "extra": json.loads(props["extra"]) if props.get("extra") else {},
                "secure": props.get("secure") == "true",
            }
            key = json.dumps(worker, sort_keys=True)
            if reported.get(name) == key:
                continue
            out({"ev": "added" if name not in reported else "updated", "worker": worker})
            reported[name] = key


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("publish", "browse"):
        sys.stderr.write(__doc__ or "")
        return 2
    (publish if sys.argv[1] == "publish" else browse)(sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
