"""What each rank runs: one spawned process per rank, all on 127.0.0.1, gloo.

`entry` is the process target. It joins the process group, runs the same plan on every rank
(SPMD: the ranks a phase does not need wait at a barrier) and sends its records to the parent
through the `messages` queue. The parent (launcher.py) turns them into the lab's result.

Every timer here is `time.perf_counter()`: a monotonic wall clock. Communication waits off the CPU,
so a CPU clock (`time.process_time`) would miss it.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime
import math
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from labs._parent import parent_alive_probe
from labs.distributed.analysis import decompose_step

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PHASES = ("scaling", "buckets", "accumulation", "grid", "sweep", "profile")


class MissingDependency(Exception):
    """torch.distributed or its gloo backend is not in this PyTorch build."""


# ---------------------------------------------------------------------------------------------
# Process life: die with the parent, quietly on Ctrl+C
# ---------------------------------------------------------------------------------------------


def die_with_parent(parent_pid: int) -> None:
    """Exit as soon as the lab process is gone, however it ended (even SIGKILL).

    Linux delivers SIGKILL to us when the parent dies (prctl PR_SET_PDEATHSIG); elsewhere a
    daemon thread notices that we were re-parented. Without this a killed lab would leave its
    ranks blocked in a collective until gloo's timeout.
    """
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    parent_alive = parent_alive_probe(parent_pid)  # getppid alone never changes on Windows
    if not parent_alive():  # the parent died before prctl took effect
        os._exit(1)
    if armed:  # no polling thread then: it would take the GIL from the timed steps 4 times a second
        return

    def watch() -> None:
        while parent_alive():
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def entry(
    rank: int,
    world_size: int,
    plan: dict[str, Any],
    messages: Any,
    port_value: Any,
    port_ready: Any,
    parent_pid: int,
) -> None:
    die_with_parent(parent_pid)
    # Both must be set before torch (and gloo) start: the loopback interface only, one compute thread.
    os.environ["GLOO_SOCKET_IFNAME"] = plan["loopback_interface"]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    code = 0
    try:
        result = Rank(rank, world_size, plan, messages).run(port_value, port_ready)
        messages.put(("result", rank, result))
    except MissingDependency as exc:
        messages.put(("dependency", rank, str(exc)))
        code = 3
    except KeyboardInterrupt:  # Ctrl+C reaches every process of the terminal: the parent reports it
        os._exit(130)
    except BaseException as exc:  # the parent stops the others and shows this line
        messages.put(("error", rank, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
        code = 1
    # Hand the message over, then leave without the interpreter's teardown: with torch, its
    # dynamo and the profiler loaded, tearing down takes 2–6 s on a busy 2-core machine and
    # has nothing left to save (the process group is destroyed, sockets close with the process).
    messages.close()
    messages.join_thread()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


# ---------------------------------------------------------------------------------------------
# Timers: DDP's default all-reduce hook, with two clock reads
# ---------------------------------------------------------------------------------------------


class CommTimer:
    """A DDP communication hook that does what DDP's default does (average the bucket with an
    all-reduce) and records when each bucket was queued for gloo and when its result came back.

    A Python hook needs a Python callback for its result (DDP's own default runs in C++): on this
    machine that changed the step time by less than the noise between runs.
    """

    def __init__(self, dist: Any, group: Any, group_size: int) -> None:
        self.dist = dist
        self.group = group
        self.group_size = group_size
        self.launches: list[float] = []
        self.returned: list[float] = []
        self.dones: list[float] = []

    def reset(self) -> None:
        self.launches, self.returned, self.dones = [], [], []

    # No annotations: DDP checks them against dist.GradBucket and Future[Tensor], and this module
    # does not import torch at the top.
    def hook(self, state, bucket):  # type: ignore[no-untyped-def]
        tensor = bucket.buffer()
        tensor.div_(self.group_size)
        index = len(self.dones)
        self.dones.append(math.nan)
        # Launched = when DDP handed the bucket over. The call itself (Python, the c10d op that
        # queues the work for gloo) is timed too: on a busy machine it waits milliseconds for the
        # GIL and a CPU, and that is where these clocks and the profiler's events drift apart.
        self.launches.append(time.perf_counter())
        future = self.dist.all_reduce(tensor, group=self.group, async_op=True).get_future()
        self.returned.append(time.perf_counter())

        def finished(done: Any) -> Any:  # runs on the gloo thread when the all-reduce completes
            self.dones[index] = time.perf_counter()
            return done.value()[0]

        return future.then(finished)


# ---------------------------------------------------------------------------------------------
# One rank
# ---------------------------------------------------------------------------------------------


class Rank:
    def __init__(self, rank: int, world_size: int, plan: dict[str, Any], messages: Any) -> None:
        self.rank = rank
        self.world_size = world_size
        self.plan = plan
        self.messages = messages
        self.done_work = 0.0
        self.started = time.perf_counter()

    # -- plumbing -------------------------------------------------------------------------------

    def progress(self, phase: str, message: str, work: float = 0.0) -> None:
        self.done_work += work
        if self.rank == 0:
            fraction = min(self.done_work / self.plan["total_work"], 1.0)
            self.messages.put(("progress", 0, phase, fraction, message))

    def run(self, port_value: Any, port_ready: Any) -> dict[str, Any]:
        import torch
        import torch.distributed as dist

        if not dist.is_available() or not dist.is_gloo_available():
            raise MissingDependency("this PyTorch build has no torch.distributed with gloo")
        self.torch, self.dist = torch, dist
        torch.set_num_threads(1)  # one core per rank: N ranks, N cores (gloo has its own threads)
        self.join(port_value, port_ready)
        sizes = self.plan["world_sizes"]
        # Every rank creates every group, members or not: new_group is collective over the world.
        self.groups = {
            n: (dist.new_group(list(range(n))) if n < self.world_size else None) for n in sizes if n > 1
        }
        self.messages.put(("ready", self.rank, os.getpid()))
        self.barrier()
        out: dict[str, Any] = {
            "rank": self.rank,
            "pid": os.getpid(),
            "phase_s": {"start": time.perf_counter() - self.started},
        }
        phases = {
            "scaling": self.scaling,
            "buckets": self.buckets,
            "accumulation": self.accumulation,
            "grid": self.grid,
            "sweep": self.sweep,
            "profile": self.profiled,
        }
        for name in self.plan.get("phases", PHASES):  # the exercise's checker runs the profile only
            phase = phases[name]
            began = time.perf_counter()
            out[name] = phase()
            out["phase_s"][name] = time.perf_counter() - began
        began = time.perf_counter()
        self.barrier()
        dist.destroy_process_group()
        out["phase_s"]["teardown"] = time.perf_counter() - began
        return out

    def join(self, port_value: Any, port_ready: Any) -> None:
        """Rendezvous on 127.0.0.1 only.

        Rank 0 binds a socket to 127.0.0.1 with port 0 (the kernel picks a free port: nothing to
        race for) and hands that listening socket to the TCPStore, which otherwise would bind every
        interface. The parent passes the port to the other ranks through shared memory.
        """
        timeout = datetime.timedelta(seconds=self.plan["collective_timeout_s"])
        if self.rank == 0:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(128)
            port = listener.getsockname()[1]
            store = self.dist.TCPStore(
                "127.0.0.1",
                port,
                self.world_size,
                True,
                timeout=timeout,
                wait_for_workers=False,
                master_listen_fd=listener.detach(),  # the store owns the socket from now on
            )
            port_value.value = port
            port_ready.set()
        else:
            if not port_ready.wait(self.plan["collective_timeout_s"]):
                raise RuntimeError("rank 0 did not open the rendezvous port in time")
            port = port_value.value
            store = self.dist.TCPStore("127.0.0.1", port, self.world_size, False, timeout=timeout)
        os.environ["MASTER_PORT"] = str(port)
        self.dist.init_process_group(
            "gloo", store=store, rank=self.rank, world_size=self.world_size, timeout=timeout
        )

    def barrier(self, group: Any = None) -> None:
        self.dist.barrier(group=group)

    # -- model and steps ------------------------------------------------------------------------

    def model(self, width: int, depth: int) -> Any:
        nn = self.torch.nn
        self.torch.manual_seed(0)  # the same start on every rank (DDP broadcasts rank 0's anyway)
        layers: list[Any] = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), nn.ReLU()]
        return nn.Sequential(*layers)

    def batch(self, rows: int, width: int) -> tuple[Any, Any]:
        generator = self.torch.Generator().manual_seed(1000 + self.rank)
        x = self.torch.randn(rows, width, generator=generator)
        return x, self.torch.randn(rows, width, generator=generator)

    def ddp(
        self, width: int, depth: int, n: int, bucket_cap_mb: float | None = None
    ) -> tuple[Any, Any, CommTimer]:
        from torch.nn.parallel import DistributedDataParallel

        group = self.groups[n]
        ddp = DistributedDataParallel(
            self.model(width, depth), process_group=group, bucket_cap_mb=bucket_cap_mb
        )
        timer = CommTimer(self.dist, group, n)
        ddp.register_comm_hook(None, timer.hook)
        return ddp, self.torch.optim.SGD(ddp.parameters(), lr=1e-3), timer

    def synced_step(self, ddp: Any, optimizer: Any, timer: CommTimer, x: Any, y: Any) -> dict[str, float]:
        mse = self.torch.nn.functional.mse_loss
        timer.reset()
        start = time.perf_counter()
        loss = mse(ddp(x), y)
        forward_end = time.perf_counter()
        loss.backward()  # returns after DDP waited for every bucket's all-reduce
        backward_end = time.perf_counter()
        optimizer.step()
        optimizer.zero_grad()
        end = time.perf_counter()
        record = decompose_step(start, end, timer.launches, timer.dones)
        record["dispatch_s"] = sum(b - a for a, b in zip(timer.launches, timer.returned, strict=True))
        record.update(
            forward_s=forward_end - start,
            backward_s=backward_end - forward_end,
            optimizer_s=end - backward_end,
        )
        return record

    def local_step(
        self, model: Any, optimizer: Any, x: Any, y: Any, no_sync: Callable[[], Any] | None = None
    ) -> float:
        """A step without communication: a plain model, or DDP inside no_sync() (compute only)."""
        mse = self.torch.nn.functional.mse_loss
        start = time.perf_counter()
        with no_sync() if no_sync is not None else contextlib.nullcontext():
            mse(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
        return time.perf_counter() - start

    # -- phases ---------------------------------------------------------------------------------

    def scaling(self) -> dict[str, Any]:
        """The same global batch on 1, 2, ... N processes: each rank takes batch / n rows.

        The process counts take turns round by round (1, 2, 1, 2, ...), so a busy moment of the
        machine spreads over all of them instead of spoiling one.
        """
        cfg = self.plan["scaling"]
        width, depth, batch = self.plan["width"], self.plan["depth"], self.plan["global_batch"]
        setups: dict[int, Any] = {}
        out: dict[str, Any] = {}
        for n in self.plan["world_sizes"]:
            out[str(n)] = {"synced": [], "nosync": [], "cpu_s": 0.0, "wall_s": 0.0}
            if self.rank >= n:
                continue
            x, y = self.batch(batch // n, width)
            if n == 1:
                model = self.model(width, depth)
                optimizer = self.torch.optim.SGD(model.parameters(), lr=1e-3)
                for _ in range(cfg["warmup"]):
                    self.local_step(model, optimizer, x, y)
                setups[n] = (model, optimizer, None, x, y)
            else:
                ddp, optimizer, timer = self.ddp(width, depth, n)
                for _ in range(cfg["warmup"]):  # DDP rebuilds its buckets after the first step
                    self.synced_step(ddp, optimizer, timer, x, y)
                setups[n] = (ddp, optimizer, timer, x, y)
        self.barrier()
        per_round = [len(part) for part in split(cfg["steps"], cfg["rounds"])]
        for steps in per_round:
            for n in self.plan["world_sizes"]:
                if self.rank < n:
                    self.scaling_block(n, steps, setups[n], out[str(n)])
                self.barrier()
                self.progress("scaling", f"{n} process(es): {steps} steps", steps * (2 if n > 1 else 1))
        return out

    def scaling_block(self, n: int, steps: int, setup: tuple[Any, ...], record: dict[str, Any]) -> None:
        model, optimizer, timer, x, y = setup
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(steps):
            if n == 1:
                record["nosync"].append(self.local_step(model, optimizer, x, y))
                continue
            # Synchronised and no_sync steps alternate, so a slow moment hits both alike; the
            # barrier (not timed) starts every step with all ranks together.
            self.barrier(self.groups[n])
            record["synced"].append(self.synced_step(model, optimizer, timer, x, y))
            self.barrier(self.groups[n])
            record["nosync"].append(self.local_step(model, optimizer, x, y, model.no_sync))
        record["cpu_s"] += time.process_time() - cpu
        record["wall_s"] += time.perf_counter() - wall

    def buckets(self) -> list[dict[str, Any]]:
        """bucket_cap_mb: many small buckets start reducing early; one big bucket waits for all gradients."""
        n, width, depth = self.world_size, self.plan["width"], self.plan["depth"]
        x, y = self.batch(self.plan["global_batch"] // n, width)
        out = []
        for cap in self.plan["bucket_caps_mb"]:
            ddp, optimizer, timer = self.ddp(width, depth, n, bucket_cap_mb=cap)
            for _ in range(self.plan["phase_warmup"]):
                self.synced_step(ddp, optimizer, timer, x, y)
            records = []
            for _ in range(self.plan["bucket_steps"]):
                self.barrier()
                records.append(self.synced_step(ddp, optimizer, timer, x, y))
            out.append({"bucket_cap_mb": cap, "steps": records})
            self.progress("buckets", f"bucket_cap_mb={cap:g}", self.plan["bucket_steps"])
        return out

    def accumulation(self) -> dict[str, Any]:
        """k micro-batches per optimizer step: all-reduce after each, or only after the last (no_sync)."""
        n, width, depth = self.world_size, self.plan["width"], self.plan["depth"]
        k = self.plan["accumulation"]
        micro = max(1, self.plan["global_batch"] // n // k)
        x, y = self.batch(micro, width)
        ddp, optimizer, timer = self.ddp(width, depth, n)
        mse = self.torch.nn.functional.mse_loss

        def step(use_no_sync: bool) -> dict[str, float]:
            timer.reset()
            segments = []
            start = time.perf_counter()
            for i in range(k):
                first = len(timer.launches)
                skip = use_no_sync and i < k - 1
                with ddp.no_sync() if skip else contextlib.nullcontext():
                    mse(ddp(x), y).backward()
                segments.append((first, len(timer.launches)))
            optimizer.step()
            optimizer.zero_grad()
            end = time.perf_counter()
            record = decompose_step(start, end, timer.launches, timer.dones, segments)
            record["allreduce_calls"] = len(timer.launches)
            return record

        out: dict[str, Any] = {"k": k, "micro_batch": micro, "every": [], "no_sync": []}
        for _ in range(self.plan["phase_warmup"]):
            step(False)
            step(True)
        for _ in range(self.plan["accumulation_steps"]):
            for name, use_no_sync in (("every", False), ("no_sync", True)):
                self.barrier()
                out[name].append(step(use_no_sync))
        self.progress("accumulation", f"{k} micro-batches per step", 2 * self.plan["accumulation_steps"])
        return out

    def grid(self) -> list[dict[str, Any]]:
        """Model size × batch size: computing grows with both, all-reduce with the parameters only."""
        n, depth = self.world_size, self.plan["depth"]
        out = []
        for width in self.plan["grid_widths"]:
            ddp, optimizer, timer = self.ddp(width, depth, n)
            params = sum(p.numel() for p in ddp.parameters())
            for rows in self.plan["grid_batches"]:
                x, y = self.batch(rows, width)
                for _ in range(self.plan["phase_warmup"]):
                    self.synced_step(ddp, optimizer, timer, x, y)
                records = []
                for _ in range(self.plan["grid_steps"]):
                    self.barrier()
                    records.append(self.synced_step(ddp, optimizer, timer, x, y))
                out.append({"width": width, "params": params, "batch_per_rank": rows, "steps": records})
                self.progress("model vs batch", f"width {width}, batch {rows}/rank", self.plan["grid_steps"])
        return out

    def sweep(self) -> dict[str, Any]:
        """All-reduce alone, message size by message size: barrier, warm-up, then the wall clock."""
        sizes = self.plan["sweep_bytes"]
        tensors = {size: self.torch.ones(size // 4) for size in sizes}
        for tensor in tensors.values():
            self.dist.all_reduce(tensor)  # warm-up: first use of a size allocates and connects buffers
        times: dict[str, list[float]] = {str(size): [] for size in sizes}
        for _ in range(self.plan["sweep_repeats"]):  # sizes interleaved: a busy moment hits all
            for size, tensor in tensors.items():
                self.barrier()  # start together: otherwise we time the other rank's lateness
                start = time.perf_counter()
                self.dist.all_reduce(tensor)
                times[str(size)].append(time.perf_counter() - start)
        self.progress("all-reduce sweep", f"{len(sizes)} message sizes", len(sizes))
        return {"times": times, "world_size": self.world_size}

    def profiled(self) -> dict[str, Any]:
        """The default DDP step under torch.profiler: the trace and the hook timers of the same steps."""
        from torch.profiler import ProfilerActivity, profile, schedule

        n, width, depth = self.world_size, self.plan["width"], self.plan["depth"]
        ddp, optimizer, timer = self.ddp(width, depth, n)
        x, y = self.batch(self.plan["global_batch"] // n, width)
        for _ in range(self.plan["phase_warmup"]):
            self.synced_step(ddp, optimizer, timer, x, y)
        active = self.plan["profile_steps"]
        path = os.path.join(self.plan["trace_dir"], f"trace_rank{self.rank}.json")
        records: list[dict[str, float]] = []
        self.barrier()
        started = time.perf_counter()
        with profile(
            activities=[ProfilerActivity.CPU],
            schedule=schedule(wait=0, warmup=1, active=active, repeat=1),
            on_trace_ready=lambda prof: prof.export_chrome_trace(path),
        ) as prof:
            for i in range(1 + active):
                record = self.synced_step(ddp, optimizer, timer, x, y)
                if i >= 1:  # the recorded steps (the first one is the profiler's warm-up)
                    records.append(record)
                prof.step()
        self.progress("profiler", f"trace of {active} steps", active)
        return {"trace": path, "steps": records, "wall_s": time.perf_counter() - started}


def split(total: int, parts: int) -> list[range]:
    """`total` steps in `parts` rounds of nearly equal size (no empty round)."""
    parts = max(1, min(parts, total))
    base, extra = divmod(total, parts)
    sizes = [base + (1 if i < extra else 0) for i in range(parts)]
    starts = [sum(sizes[:i]) for i in range(parts)]
    return [range(start, start + size) for start, size in zip(starts, sizes, strict=True)]
