"""Stand between studyapp and a child it runs (a lab, a checker), so nothing the child starts outlives it.

`studyapp.child.run_child` runs `python -I -S childguard.py REPORT_FILE COMMAND...` in a session of
its own (POSIX) or a Job Object (Windows), with a pipe on its stdin. Standard library only, and no
studyapp import: it starts in milliseconds. No inherited descriptors beyond the standard three, so
the same guard runs on Linux, macOS and Windows; what a platform lacks, it does without:

- The guard is a child subreaper (Linux, `prctl(PR_SET_CHILD_SUBREAPER)`): a process COMMAND starts
  that leaves its process group or session (`Popen(start_new_session=True)`, a double fork with
  `setsid`) is re-parented to the guard when its parent dies, not to init, so it stays a
  descendant of the guard and can be found.
- COMMAND runs in a process group of its own where there are groups: a command that kills its own
  group (learner code can) does not kill the guard with it.
- When COMMAND exits, every descendant still alive is killed and reaped (found through /proc; the
  process group where there is no /proc; on Windows studyapp's Job Object does it), and what was
  stopped is written as JSON to REPORT_FILE (the first line there is COMMAND's pid). A subreaper
  first kills its own children round after round (`kill_own_children`): orphans all come to it,
  so a process that re-forks every millisecond is caught, which rounds of /proc scans were not.
- stdin is a pipe whose write end only studyapp holds: end of file means studyapp is gone (kill -9,
  a crash, a closed terminal). The guard then stops COMMAND and all it started: SIGTERM, then
  SIGKILL after `TERM_GRACE_S`. SIGTERM or SIGHUP to the guard does the same.
- SIGINT (CTRL_BREAK on Windows, sent by studyapp to the whole console group) is passed on to
  COMMAND alone: a lab that serves something (TensorBoard) ends serving and still sends its report.
- The guard exits with COMMAND's status (dying of the same signal, if COMMAND did).

Where the platform's facilities are emulated away for tests (tests/emulation/), the guard loads the
same emulation: `STUDYAPP_TEST_EMULATION` names its sitecustomize (`-I` would skip PYTHONPATH).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import runpy
import signal
import subprocess
import sys
import threading
import time

# SIGKILL and SIGHUP are POSIX; on Windows os.kill with SIGTERM is TerminateProcess, as final as it gets.
KILL = getattr(signal, "SIGKILL", signal.SIGTERM)

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
TERM_GRACE_S = 1.5  # below studyapp's STOP_GRACE_S: the guard finishes its sweep before studyapp kills it
ORPHAN_GRACE_S = 0.5  # after COMMAND ends: what ends on its own meanwhile is not stopped
SWEEP_LIMIT_S = 2.0  # a fork bomb still ends: rounds of SIGKILL until nothing is left, this long at most
POLL_S = 0.1
REPORTED = 100  # processes named in the report (a pipe holds 64 KB before a write would block)


def become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def process_table() -> dict[int, tuple[int, str, str]] | None:
    """pid → (parent pid, state, name) of every process, read from /proc, else from `ps` (macOS and
    the BSDs have no /proc); None where neither answers (Windows: the Job Object holds the tree)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return ps_table()
    table: dict[int, tuple[int, str, str]] = {}
    for entry in entries:
        if entry.isdigit() and (row := proc_stat(int(entry))) is not None:
            table[int(entry)] = row
    return table


def proc_stat(pid: int) -> tuple[int, str, str] | None:
    """(parent pid, state, name) from /proc/PID/stat; None once the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # "pid (name) state ppid ...": the name may hold spaces and parentheses, so split at the last ")"
    end = data.rfind(b")")
    fields = data[end + 2 :].split()
    if end < 0 or len(fields) < 2:
        return None
    name = data[data.find(b"(") + 1 : end].decode("utf-8", errors="replace")
    return int(fields[1]), fields[0].decode("ascii", errors="replace"), name


def ps_table() -> dict[int, tuple[int, str, str]] | None:
    """The same table from POSIX `ps` (state: its first letter, Z for a zombie)."""
    if os.name != "posix":
        return None
    try:
        ps = subprocess.Popen(
            ["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "stat=", "-o", "comm="],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        listing, _ = ps.communicate(timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    table: dict[int, tuple[int, str, str]] = {}
    for line in listing.decode("utf-8", errors="replace").splitlines():
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[0].isdigit() and fields[1].isdigit():
            table[int(fields[0])] = (int(fields[1]), fields[2][:1], os.path.basename(fields[3]))
    table.pop(ps.pid, None)  # ps itself, a child of the guard, ended by now
    return table or None


def descendants(root: int, table: dict[int, tuple[int, str, str]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found: list[int] = []
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


class Guard:
    def __init__(self, command: list[str], report: str) -> None:
        self.command = command
        self.report = report
        self.child: subprocess.Popen[bytes] | None = None
        self.status: int | None = None  # COMMAND's wait status, once reaped
        self.stop_asked = False
        self.stopped: dict[int, str] = {}
        self.exit_code: int | None = None  # COMMAND's, as Popen gives it (-N: killed by signal N)
        self.own_group = False  # COMMAND leads a process group of its own
        self.subreaper = False  # every orphan of the tree comes to the guard (Linux)
        self.parent_gone_at_eof = threading.Event()

    # ---------------------------------------------------------------- signals

    def on_stop(self, signum: int, frame: object) -> None:
        self.stop_asked = True

    def on_interrupt(self, signum: int, frame: object) -> None:
        # Not on Windows: os.kill with SIGINT is TerminateProcess there (studyapp's CTRL_BREAK
        # reaches COMMAND directly, and the guard's group gets no console Ctrl+C).
        if self.child is not None and self.status is None and os.name != "nt":
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.child.pid, signal.SIGINT)

    # ---------------------------------------------------------------- children

    def reap(self) -> None:
        """Collect every child that ended (COMMAND's status among them): no zombie stays behind."""
        if not hasattr(os, "WNOHANG"):  # Windows: no waitpid(-1); COMMAND is the guard's one child
            if self.child is not None and self.status is None and self.child.poll() is not None:
                self.status = 0  # reaped; Windows has no wait status to keep
                self.exit_code = self.child.returncode
            return
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            except InterruptedError:
                continue
            if pid == 0:
                return
            if self.child is not None and pid == self.child.pid:
                self.status = status
                self.exit_code = os.waitstatus_to_exitcode(status)
                self.child.returncode = self.exit_code  # Popen must not wait again

    def signal_all(self, signum: int) -> None:
        """Send `signum` to COMMAND and every descendant of the guard (its group, where /proc is missing)."""
        table = process_table()
        if table is None:
            if self.child is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
                    if hasattr(os, "killpg") and self.own_group:
                        os.killpg(self.child.pid, signum)
                    elif self.status is None:
                        os.kill(self.child.pid, signum)  # no groups here (Windows): the job does the rest
            return
        for pid in descendants(os.getpid(), table):
            _, state, name = table[pid]
            if state in ("Z", "X"):
                continue  # already dead, only not reaped yet
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)
                if signum == KILL and (self.child is None or pid != self.child.pid):
                    self.stopped.setdefault(pid, name)

    def own_children(self) -> list[int] | None:
        """The guard's own children, from /proc/self/task/*/children: a few small reads, not a
        scan of /proc. None where the kernel has no such file (or there is no /proc)."""
        try:
            tasks = os.listdir("/proc/self/task")
        except OSError:
            return None
        children: list[int] = []
        for task in tasks:
            try:
                with open(f"/proc/self/task/{task}/children", "rb") as handle:
                    children.extend(int(pid) for pid in handle.read().split())
            except FileNotFoundError:
                if os.path.isdir(f"/proc/self/task/{task}"):
                    return None  # the thread is there, the file is not: no CONFIG_PROC_CHILDREN
            except (OSError, ValueError):
                continue  # the thread ended meanwhile
        return children

    def kill_own_children(self, deadline: float) -> None:
        """As a subreaper, rounds of SIGKILL to the guard's own children, listed afresh each round
        (no scan of /proc), until none is left (or `deadline`). Each process the tree leaves comes
        to the guard as its parent dies, so a process that re-forks every millisecond (its parent
        exiting: a new pid each time, faster than a scan of /proc) is one of them, caught within
        a few rounds; a SIGKILL that lands during its fork ends the fork too."""
        if not self.subreaper:
            return
        while time.monotonic() < deadline:
            children = self.children_left()
            if not children:
                return
            for pid in children:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, KILL)
            for pid in children:  # named after the kills, while they are zombies not yet reaped
                if (self.child is None or pid != self.child.pid) and pid not in self.stopped:
                    self.stopped[pid] = (proc_stat(pid) or (0, "", ""))[2]
            time.sleep(0.001)  # a process that cannot die yet (in the kernel) is not spun on

    def wait_for_orphans(self, deadline: float) -> None:
        """Until `deadline`, reap the guard's children as they end: a pool's worker or the
        multiprocessing resource tracker ends a moment after the process that made it, and was
        reported as left running (a correct check failed its hygiene). Where the guard cannot list
        its children (no /proc), the sweep decides at once, as before."""
        while time.monotonic() < deadline and self.children_left():
            time.sleep(0.02)

    def children_left(self) -> list[int] | None:
        """The guard's own children still alive (or just dying): the dead are reaped first."""
        self.reap()
        return self.own_children()

    def sweep(self) -> None:
        """Kill what is left, round after round, until no descendant remains (or SWEEP_LIMIT_S)."""
        deadline = time.monotonic() + SWEEP_LIMIT_S
        while True:
            self.kill_own_children(deadline)
            self.reap()
            table = process_table()
            if table is None:
                self.signal_all(KILL)
                self.reap()
                return
            alive = [p for p in descendants(os.getpid(), table) if table[p][1] not in ("Z", "X")]
            if not alive or time.monotonic() > deadline:
                self.reap()
                return
            self.signal_all(KILL)
            time.sleep(0.01)  # let the killed die and their orphans reach the guard

    def stop_everything(self) -> None:
        """Studyapp is gone or asked to stop: SIGTERM to all, a grace to end, then the sweep."""
        self.signal_all(signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE_S
        while self.status is None and time.monotonic() < deadline:
            time.sleep(0.02)
            self.reap()
        self.sweep()

    # ---------------------------------------------------------------- the run

    def watch_lifeline(self) -> None:
        """A thread: stdin reaches end of file when studyapp's write end closes (studyapp is gone).
        A thread, not select(): Windows cannot select on a pipe."""
        with contextlib.suppress(OSError, ValueError):
            while os.read(0, 512):
                pass
        self.parent_gone_at_eof.set()

    def write_report(self, text: str) -> None:
        with contextlib.suppress(OSError), open(self.report, "a", encoding="utf-8") as handle:
            handle.write(text)  # closed at once: studyapp reads the file while the guard runs

    def start_command(self) -> subprocess.Popen[bytes]:
        options: dict[str, object] = {}
        if hasattr(os, "setpgid") and sys.version_info >= (3, 11):
            options["process_group"] = 0  # a group of its own (setpgid in the child, no Python code there)
        elif hasattr(os, "setpgrp"):
            options["preexec_fn"] = os.setpgrp  # 3.10; the lifeline thread is not started yet: safe
        self.own_group = bool(options)
        return subprocess.Popen(self.command, stdin=subprocess.DEVNULL, **options)  # type: ignore[call-overload]

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self.on_stop)
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, self.on_stop)
        signal.signal(signal.SIGINT, self.on_interrupt)
        if hasattr(signal, "SIGBREAK"):  # Windows: studyapp's "finish serving" reaches COMMAND itself
            signal.signal(signal.SIGBREAK, signal.SIG_IGN)
        subreaper = self.subreaper = become_subreaper()
        try:
            self.child = self.start_command()
        except OSError as exc:
            self.write_report(json.dumps({"pid": None, "error": str(exc)}) + "\n")
            return 127
        self.write_report(json.dumps({"pid": self.child.pid}) + "\n")
        threading.Thread(target=self.watch_lifeline, daemon=True).start()
        while self.status is None:
            if self.stop_asked or self.parent_gone_at_eof.is_set():
                self.stop_everything()
                break
            time.sleep(POLL_S)
            self.reap()
        else:  # COMMAND ended by itself: what is ending with it gets a moment before the sweep
            self.wait_for_orphans(time.monotonic() + ORPHAN_GRACE_S)
        self.sweep()
        stopped = [{"pid": pid, "name": name} for pid, name in sorted(self.stopped.items())]
        report = {"stopped": stopped[:REPORTED], "count": len(stopped), "subreaper": subreaper}
        self.write_report(json.dumps(report) + "\n")
        return self.status if self.status is not None else 0


def main(argv: list[str]) -> None:
    emulation = os.environ.get("STUDYAPP_TEST_EMULATION")
    if emulation:  # tests only (see the module's docstring)
        runpy.run_path(emulation)
    report, command = argv[1], argv[2:]
    guard = Guard(command, report)
    status = guard.run()
    if guard.child is None or guard.status is None or guard.exit_code is None:
        sys.exit(status)
    if guard.exit_code < 0 and hasattr(os, "WIFSIGNALED"):  # die as COMMAND died: studyapp sees the same -N
        number = -guard.exit_code
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP keep their default anyway
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        time.sleep(1)  # SIGSTOP and the like do not end a process: fall through to an exit code
        sys.exit(128 + number)
    sys.exit(guard.exit_code)


if __name__ == "__main__":
    main(sys.argv)
