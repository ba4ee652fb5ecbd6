"""Start the ranks, relay their progress, collect their records, and never leave one behind.

- spawn (not fork): each rank is a fresh Python, as torchrun would start it;
- the ranks die with the lab: Ctrl+C, SIGTERM, a crash of any rank, a timeout, or the lab being
  killed outright (worker.die_with_parent);
- what the ranks listen on is read from outside, from /proc (Linux): everything must be 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import ipaddress
import multiprocessing
import os
import queue
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from labs._protocol import LabUsageError
from labs.distributed import worker

STOP_GRACE_S = 3.0


class RankFailed(RuntimeError):
    """A rank crashed, exited early, or the run took longer than its limit."""


class RankMissingDependency(RankFailed):
    """The ranks' PyTorch has no torch.distributed or no gloo."""


def loopback_interface() -> str:
    """The name of the loopback interface (lo on Linux, lo0 on macOS) for GLOO_SOCKET_IFNAME.

    Without it gloo binds the address the host name resolves to — on many laptops the Wi-Fi
    address, reachable from the network.
    """
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        names = []
    for name in ("lo", "lo0", *names):
        if name in names and name.startswith("lo"):
            return name
    raise LabUsageError(
        "no loopback interface (lo) found: the lab refuses to let gloo bind another interface"
    )


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (studyapp's cancel, `kill`) unwinds like Ctrl+C, so the `finally` that stops the ranks runs."""

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: nothing to install
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_ranks(
    world_size: int,
    plan: dict[str, Any],
    timeout_s: float,
    on_progress: Callable[[str, float, str], None],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Run `worker.entry` on `world_size` processes; their results by rank, and what they listened on."""
    ctx = multiprocessing.get_context("spawn")
    messages = ctx.Queue()
    port_value = ctx.Value("i", 0)
    port_ready = ctx.Event()
    processes = [
        ctx.Process(
            target=worker.entry,
            args=(rank, world_size, plan, messages, port_value, port_ready, os.getpid()),
            name=f"rank{rank}",
            daemon=True,
        )
        for rank in range(world_size)
    ]
    results: dict[int, dict[str, Any]] = {}
    ready: set[int] = set()
    listening: list[dict[str, Any]] | None = None
    deadline = time.monotonic() + timeout_s
    with sigterm_as_interrupt():
        try:
            for process in processes:
                process.start()
            while len(results) < world_size:
                if time.monotonic() > deadline:
                    raise RankFailed(f"the ranks did not finish within {timeout_s:.0f} s")
                try:
                    message = messages.get(timeout=0.2)
                except queue.Empty:
                    for rank, process in enumerate(processes):
                        if rank not in results and process.exitcode is not None:
                            raise RankFailed(
                                f"rank {rank} exited with code {process.exitcode} before reporting"
                            ) from None
                    continue
                kind, rank = message[0], message[1]
                if kind == "progress":
                    on_progress(message[2], message[3], message[4])
                elif kind == "ready":
                    ready.add(rank)
                    if len(ready) == world_size:
                        # Every rank has joined the group and made its pairs: read the sockets now.
                        listening = listening_sockets([p.pid for p in processes if p.pid is not None])
                elif kind == "dependency":
                    raise RankMissingDependency(message[2])
                elif kind == "error":
                    raise RankFailed(f"rank {rank}: {message[2]}")
                elif kind == "result":
                    results[rank] = message[2]
        finally:
            # After every result: the ranks are exiting by themselves, give them a moment. After a
            # failure or Ctrl+C: a rank may be blocked in a collective, stop it now.
            stop(processes, grace_s=STOP_GRACE_S if len(results) == world_size else 0.0)
            messages.close()
            messages.cancel_join_thread()
    return [results[rank] for rank in range(world_size)], listening


def stop(processes: list[Any], grace_s: float) -> None:
    """Wait up to `grace_s` for ranks that are finishing; terminate, then kill, the rest."""
    deadline = time.monotonic() + grace_s
    for process in processes:
        if process.pid is not None:
            process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.pid is not None and process.is_alive():
            process.terminate()
    for process in processes:
        if process.pid is not None:
            process.join(1.0)
            if process.is_alive():
                process.kill()
                process.join(1.0)


# ---------------------------------------------------------------------------------------------
# What the ranks listen on (Linux: /proc/PID/fd and /proc/net/tcp{,6})
# ---------------------------------------------------------------------------------------------


def listening_sockets(pids: list[int]) -> list[dict[str, Any]] | None:
    """Every TCP socket in LISTEN state that one of `pids` holds: address and port. None off Linux."""
    if not os.path.isdir("/proc/net"):
        return None
    owner: dict[str, int] = {}
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        with contextlib.suppress(OSError):
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"{fd_dir}/{fd}")
                    if target.startswith("socket:["):
                        owner[target[8:-1]] = pid
    found = []
    for table, family in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6)):
        try:
            with open(table, encoding="ascii") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != "0A" or fields[9] not in owner:  # 0A = LISTEN
                continue
            address_hex, port_hex = fields[1].split(":")
            address = decode_address(address_hex, family)
            found.append(
                {
                    "pid": owner[fields[9]],
                    "address": str(address),
                    "port": int(port_hex, 16),
                    "loopback": address.is_loopback,
                }
            )
    return found


def decode_address(text: str, family: int) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """/proc/net/tcp writes addresses as 32-bit words in host (little-endian on x86/ARM) order."""
    raw = bytes.fromhex(text)
    if sys.byteorder == "little":
        raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    words = raw
    if family == 4:
        return ipaddress.IPv4Address(words)
    address = ipaddress.IPv6Address(words)
    return address.ipv4_mapped or address
