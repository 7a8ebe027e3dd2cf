"""realwool_peer: the real wool (../shared/wool-peer) as a test peer.

Run through the peer's wrapper, which makes `import wool` work:

    <wool-peer>/python realwool_peer.py local NAMESPACE [--capacity N]
    <wool-peer>/python realwool_peer.py lan NAMESPACE

`local` enters wool's `LocalDiscovery(NAMESPACE, capacity=N)` (creating the
segment, and so owning it, when it is absent); `lan` makes a
`LanDiscovery(NAMESPACE)`. Nothing here re-implements wool: every read and
write goes through wool's own publisher and subscriber.

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
- {"op": "exit", "seq": N}: leave like a wool process at the end of its
      `with` blocks (subscribers stopped, publisher exited, LocalDiscovery
      exited: the owner unlinks the segment) -> {"ev": "done", "seq": N},
      then exit 0. EOF on stdin and SIGTERM do the same.

Exit status: 0 after a clean exit; 1 when wool raised where nothing catches.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import threading
import traceback
from types import MappingProxyType
from uuid import UUID

import grpc

from wool.runtime.discovery.lan import LanDiscovery
from wool.runtime.discovery.local import LocalDiscovery
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
    def __init__(self, backend: str, namespace: str, capacity: int | None):
        self.backend = backend
        if backend == "local":
            self.discovery = LocalDiscovery(namespace, capacity=capacity or 128)
            self.discovery.__enter__()
        else:
            self.discovery = LanDiscovery(namespace)
        self.publisher = None
        self.subscriptions: dict[str, asyncio.Task] = {}
        self.left = False

    async def publish(self, type_: str, worker: dict) -> None:
        if self.publisher is None:
            publisher = self.discovery.publisher
            await publisher.__aenter__()
            self.publisher = publisher
        await self.publisher.publish(type_, to_metadata(worker))

    def subscribe(self, id_: str, poll_interval: float | None) -> None:
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
        for id_ in list(self.subscriptions):
            await self.unsubscribe(id_)
        if self.publisher is not None:
            await self.publisher.__aexit__(None, None, None)
            self.publisher = None
        if self.backend == "local":
            self.discovery.__exit__(None, None, None)


async def main() -> int:
    backend, namespace = sys.argv[1], sys.argv[2]
    capacity = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--capacity" else None
    if backend not in ("local", "lan"):
        print(f"unknown backend {backend!r}", file=sys.stderr)
        return 2
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def read_stdin() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read_stdin, daemon=True).start()
    loop.add_signal_handler(signal.SIGTERM, lambda: lines.put_nowait(None))

    peer = Peer(backend, namespace, capacity)
    out({"ev": "ready", "pid": __import__("os").getpid()})
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
