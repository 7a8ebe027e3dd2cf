"""realwool_peer: the real wool (../shared/wool-peer) as a test peer.

Run through the peer's wrapper, which makes `import wool` work:

    <wool-peer>/python realwool_peer.py local NAMESPACE [--capacity N] [--lazy]
    <wool-peer>/python realwool_peer.py lan NAMESPACE

`local` enters wool's `LocalDiscovery(NAMESPACE, capacity=N)` at once
(creating the segment, and so owning it, when it is absent), or with
`--lazy` at the first publish or subscribe; `lan` makes a
`LanDiscovery(NAMESPACE)`. Nothing here re-implements wool: every read and
write goes through wool's own publisher and subscriber, and the lock and
scan commands call wool's own module functions (`_lock`, `_iter_slots`,
`Subscriber._deserialize_metadata`).

Commands on stdin, one JSON object per line; reports on stdout, one JSON
object per line (workers in woolrx's WorkerInfo shape: camelCase options,
compression "none" | "deflate" | "gzip", tags sorted):

- first report: {"ev": "ready", "pid": PID}
- {"op": "publish", "seq": N, "type": T, "worker": W}
      through this process's one wool publisher (entered on first use)
      -> {"ev": "done", "seq": N, "error"?: {"name", "message"}}
- {"op": "publishMany", "seq": N, "ops": [{"type": T, "worker": W}, ...]}
      the operations one by one, in order; stops at the first error
      -> {"ev": "done", "seq": N, "count": DONE, "error"?: ...}
- {"op": "subscribe", "id": ID, "pollInterval"?: SECONDS}
      iterates wool's subscriber -> {"ev": "subscribed", "id": ID}, then
      {"ev": "event", "id": ID, "type": T, "worker": W} per wool event;
      {"ev": "error", "id": ID, "error": ...} if wool's iteration raises
- {"op": "unsubscribe", "id": ID, "seq": N} -> {"ev": "done", "seq": N}
- {"op": "holdLock", "seq": N}: takes wool's cross-process lock of the
      namespace (`_lock`, waiting as long as it takes) -> {"ev": "locked"};
      {"op": "releaseLock", "seq": N} releases it -> {"ev": "done", "seq": N}
- {"op": "tryLock", "seq": N}: one attempt at wool's lock (`_lock` with
      timeout 0) -> {"ev": "done", "seq": N, "value": "busy" | "free"}
- {"op": "scan", "seq": N}: reads the segment as wool's subscriber does on
      each scan -> {"ev": "done", "seq": N, "workers": [W, ...]} (slot order)
- {"op": "exit", "seq": N}: leave like a wool process at the end of its
      `with` blocks (subscribers stopped, publisher exited, LocalDiscovery
      exited: the owner unlinks the segment) -> {"ev": "done", "seq": N},
      then exit 0. EOF on stdin and SIGTERM do the same.

Exit status: 0 after a clean exit; 1 when wool raised where nothing catches.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import threading
import traceback
from types import MappingProxyType
from uuid import UUID

import grpc

from wool.runtime.discovery.lan import LanDiscovery
from wool.runtime.discovery.local import NULL_REF
from wool.runtime.discovery.local import LocalDiscovery
from wool.runtime.discovery.local import _iter_slots
from wool.runtime.discovery.local import _lock
from wool.runtime.discovery.local import _shared_memory
from wool.runtime.discovery.local import _short_hash
from wool.runtime.discovery.local import _WorkerReference
from wool.runtime.worker.base import ChannelOptions
from wool.runtime.worker.metadata import WorkerMetadata

COMPRESSIONS = ["none", "deflate", "gzip"]
OPTION_NAMES = {
    "maxReceiveMessageLength": "max_receive_message_length",
    "maxSendMessageLength": "max_send_message_length",
    "keepaliveTimeMs": "keepalive_time_ms",
    "keepaliveTimeoutMs": "keepalive_timeout_ms",
    "keepalivePermitWithoutCalls": "keepalive_permit_without_calls",
    "maxPingsWithoutData": "max_pings_without_data",
    "maxConcurrentStreams": "max_concurrent_streams",
}


def out(report: dict) -> None:
    sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def error_json(error: BaseException) -> dict:
    return {"name": type(error).__name__, "message": str(error)}


def to_metadata(worker: dict) -> WorkerMetadata:
    options = worker.get("options") or {}
    kwargs = {OPTION_NAMES[k]: v for k, v in options.items() if k in OPTION_NAMES}
    if "compression" in options:
        kwargs["compression"] = grpc.Compression(COMPRESSIONS.index(options["compression"]))
    return WorkerMetadata(
        uid=UUID(worker["uid"]),
        address=worker["address"],
        pid=int(worker["pid"]),
        version=worker["version"],
        tags=frozenset(worker.get("tags", [])),
        extra=MappingProxyType(dict(worker.get("extra", {}))),
        secure=bool(worker.get("secure", False)),
        options=ChannelOptions(**kwargs),
    )


def to_json(metadata: WorkerMetadata) -> dict:
    o = metadata.options
    options = {camel: getattr(o, snake) for camel, snake in OPTION_NAMES.items()}
    options["compression"] = COMPRESSIONS[int(o.compression.value)]
    return {
        "uid": str(metadata.uid),
        "address": metadata.address,
        "pid": metadata.pid,
        "version": metadata.version,
        "tags": sorted(metadata.tags),
        "extra": dict(metadata.extra),
        "secure": metadata.secure,
        "options": options,
    }


class Peer:
    def __init__(self, backend: str, namespace: str, capacity: int | None, lazy: bool):
        self.backend = backend
        self.namespace = namespace
        self.entered = False
        if backend == "local":
            self.discovery = LocalDiscovery(namespace, capacity=capacity or 128)
            if not lazy:
                self.enter()
        else:
            self.discovery = LanDiscovery(namespace)
        self.publisher = None
        self.subscriptions: dict[str, asyncio.Task] = {}
        self.lock_release: asyncio.Event | None = None
        self.lock_task: asyncio.Task | None = None
        self.left = False

    def enter(self) -> None:
        if self.backend == "local" and not self.entered:
            self.discovery.__enter__()
            self.entered = True

    def scan(self) -> list[dict]:
        workers = []
        # wool's subscriber's own block reader (it does not use its instance).
        read_block = LocalDiscovery.Subscriber._deserialize_metadata
        if not os.path.exists(f"/dev/shm/{_short_hash(self.namespace)}"):
            return workers  # no segment: nobody registered (what wool's subscriber would wait for)
        with _shared_memory(_short_hash(self.namespace)) as address_space:
            for _, slot in _iter_slots(address_space.buf):
                if slot != NULL_REF:
                    workers.append(to_json(read_block(None, str(_WorkerReference.from_bytes(slot)))))
        return workers

    async def hold_lock(self) -> None:
        self.lock_release = asyncio.Event()
        locked = asyncio.Event()

        async def hold() -> None:
            async with _lock(self.namespace, timeout=None):
                locked.set()
                out({"ev": "locked"})
                await self.lock_release.wait()

        self.lock_task = asyncio.get_running_loop().create_task(hold())
        await locked.wait()

    async def release_lock(self) -> None:
        if self.lock_task is not None:
            self.lock_release.set()
            await self.lock_task
            self.lock_task = None

    async def publish(self, type_: str, worker: dict) -> None:
        self.enter()
        if self.publisher is None:
            publisher = self.discovery.publisher
            await publisher.__aenter__()
            self.publisher = publisher
        await self.publisher.publish(type_, to_metadata(worker))

    def subscribe(self, id_: str, poll_interval: float | None) -> None:
        self.enter()
        if self.backend == "local":
            subscriber = self.discovery.subscribe(poll_interval=poll_interval)
        else:
            subscriber = self.discovery.subscribe()

        async def iterate() -> None:
            try:
                async for event in subscriber:
                    out({"ev": "event", "id": id_, "type": event.type, "worker": to_json(event.metadata)})
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # wool's iteration died: report it, as a test needs to know
                out({"ev": "error", "id": id_, "error": error_json(error), "trace": traceback.format_exc()})

        self.subscriptions[id_] = asyncio.get_running_loop().create_task(iterate())

    async def unsubscribe(self, id_: str) -> None:
        task = self.subscriptions.pop(id_, None)
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    async def leave(self) -> None:
        if self.left:
            return
        self.left = True
        await self.release_lock()
        for id_ in list(self.subscriptions):
            await self.unsubscribe(id_)
        if self.publisher is not None:
            await self.publisher.__aexit__(None, None, None)
            self.publisher = None
        if self.entered:
            self.discovery.__exit__(None, None, None)


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("backend", choices=["local", "lan"])
    parser.add_argument("namespace")
    parser.add_argument("--capacity", type=int)
    parser.add_argument("--lazy", action="store_true")
    args = parser.parse_args()
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def read_stdin() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read_stdin, daemon=True).start()
    loop.add_signal_handler(signal.SIGTERM, lambda: lines.put_nowait(None))

    peer = Peer(args.backend, args.namespace, args.capacity, args.lazy)
    out({"ev": "ready", "pid": os.getpid()})
    try:
        while True:
            line = await lines.get()
            if line is None:
                break
            if not line.strip():
                continue
            command = json.loads(line)
            op, seq = command.get("op"), command.get("seq")
            if op == "publish":
                try:
                    await peer.publish(command["type"], command["worker"])
                    out({"ev": "done", "seq": seq})
                except Exception as error:
                    out({"ev": "done", "seq": seq, "error": error_json(error)})
            elif op == "publishMany":
                count = 0
                try:
                    for item in command["ops"]:
                        await peer.publish(item["type"], item["worker"])
                        count += 1
                    out({"ev": "done", "seq": seq, "count": count})
                except Exception as error:
                    out({"ev": "done", "seq": seq, "count": count, "error": error_json(error)})
            elif op == "subscribe":
                peer.subscribe(command["id"], command.get("pollInterval"))
                out({"ev": "subscribed", "id": command["id"]})
            elif op == "unsubscribe":
                await peer.unsubscribe(command["id"])
                out({"ev": "done", "seq": seq})
            elif op == "holdLock":
                await peer.hold_lock()
            elif op == "releaseLock":
                await peer.release_lock()
                out({"ev": "done", "seq": seq})
            elif op == "tryLock":
                try:
                    async with _lock(peer.namespace, timeout=0):
                        value = "free"
                except TimeoutError:
                    value = "busy"
                out({"ev": "done", "seq": seq, "value": value})
            elif op == "scan":
                out({"ev": "done", "seq": seq, "workers": peer.scan()})
            elif op == "exit":
                await peer.leave()
                out({"ev": "done", "seq": seq})
                break
            else:
                out({"ev": "fatal", "error": {"name": "ValueError", "message": f"unknown op {op!r}"}})
    finally:
        await peer.leave()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
