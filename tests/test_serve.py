"""`studyapp serve` (issue 23 §3, issue 34): the page is served over HTTP on loopback and a
websocket session starts the TUI, which paints Home into it — for the learner who holds the
run's token only. Every wait has a deadline (no fixed sleeps), each server is a child process on
a free loopback port in its own process group, and it is stopped at the end whatever happened.

The cases are the reliability report's (2026-12-second): H1 foreign origin, M3 another local
user without the token, M4 kill -9 of the server, M5 a huge resize, and the serve minors."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from studyapp.cli.serve import (
    MAX_COLUMNS,
    MAX_ROWS,
    address_is_loopback,
    app_command,
    clamp_size,
    origin_allowed,
    public_url,
)
from tests.conftest import REPO

START_TIMEOUT_S = 60.0
SESSION_TIMEOUT_S = 90.0
PROC = Path("/proc")
needs_proc = pytest.mark.skipif(not (PROC / "self" / "stat").exists(), reason="reads /proc (Linux)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """A running `studyapp serve`: its printed address, its token, and its output so far."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self.wait_for_line(r"https?://\S+/\?token=\S+")
        match = re.search(r"(https?://\S+)/\?token=([\w-]+)", self.url)
        assert match, self.url
        self.base, self.token = match.group(1), match.group(2)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.put(raw.decode("utf-8", "replace"))

    def wait_for_line(self, pattern: str, timeout: float = START_TIMEOUT_S) -> str:
        deadline = time.monotonic() + timeout
        for line in self.output:
            if re.search(pattern, line):
                return line
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no line like {pattern!r}; output: {self.text()!r}"
            try:
                line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                assert self.process.poll() is None, f"the server ended: {self.text()!r}"
                continue
            self.output.append(line)
            if re.search(pattern, line):
                return line

    def text(self) -> str:
        while not self.lines.empty():
            self.output.append(self.lines.get())
        return "".join(self.output)

    def websocket_url(self, token: str | None = None) -> str:
        return f"http://127.0.0.1:{self.port}/ws/{self.token if token is None else token}?width=80&height=24"


def start_server(home: Path, *options: str, port: int | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ, STUDYAPP_HOME=str(home), PYTHONPATH=str(REPO), STUDYAPP_LANG="en")
    return subprocess.Popen(
        [sys.executable, "-m", "studyapp", "serve", "--port", str(port or free_port()), *options],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # the console lines (warnings, refusals) with the address
        start_new_session=True,  # its sessions are in its group: stopped with it at the end
    )


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=20)
    # whatever the group still holds (sessions of a server that was killed)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Served]:
    options = getattr(request, "param", ())
    port = free_port()
    process = start_server(tmp_path / "home", *options, port=port)
    try:
        yield Served(process, port)
    finally:
        stop_server(process)


def processes_under(pid: int) -> dict[int, int]:
    """{pid: ppid} of every process that descends from pid (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: dict[int, int] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found[child] = parent
                frontier.append(child)
    return found


def is_running(pid: int) -> bool:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_until(condition: Any, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, message()
        time.sleep(0.1)


# -- a websocket client, as a browser tab (or another page, or another user) would be ------------


async def open_page(served: Served, query: str) -> tuple[int, str]:
    import aiohttp  # textual-serve's own dependency

    async with (
        aiohttp.ClientSession() as client,
        client.get(
            f"http://127.0.0.1:{served.port}/{query}", timeout=aiohttp.ClientTimeout(total=30)
        ) as response,
    ):
        return response.status, await response.text()


async def read_until(websocket: Any, wanted: bytes, timeout: float = SESSION_TIMEOUT_S) -> bytes:
    """Screen bytes until `wanted` appears; an early close fails with what came."""
    import aiohttp

    received = b""
    end = time.monotonic() + timeout
    while wanted not in received:
        left = end - time.monotonic()
        assert left > 0, f"no {wanted!r} over the websocket; got {received[-300:]!r}"
        message = await websocket.receive(timeout=left)
        if message.type == aiohttp.WSMsgType.BINARY:
            received += message.data
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            raise AssertionError(f"the session ended early ({message.extra!r}); got {received[-300:]!r}")
    return received


async def pong(websocket: Any, tag: str, timeout: float = 30.0) -> bool:
    """Whether the session still answers: a ping comes back as a pong."""
    import aiohttp

    await websocket.send_json(["ping", tag])
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        message = await websocket.receive(timeout=left)
        if message.type == aiohttp.WSMsgType.TEXT and json.loads(message.data) == ["pong", tag]:
            return True
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            return False
    return False


async def refused(
    served: Served, *, token: str | None = None, origin: str | None = None
) -> tuple[int, bytes]:
    """Try a websocket; → (HTTP status of the refusal, the bytes it got). (0, …) when accepted."""
    import aiohttp

    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as client:
        try:
            async with client.ws_connect(served.websocket_url(token), headers=headers) as websocket:
                try:
                    data = await read_until(websocket, b"studyapp", timeout=15)
                except (AssertionError, asyncio.TimeoutError):
                    data = b""
                return 0, data
        except aiohttp.WSServerHandshakeError as error:
            return error.status, b""


# -- the learner's own tab ---------------------------------------------------------------------


@pytest.mark.parametrize("served", [("--max-sessions", "1")], indirect=True)
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_only_the_token_holder_on_the_page_s_own_origin_gets_a_session(served: Served) -> None:
    """H1, M3 and the session limit: the printed address (with the token) gives the page and a
    session; a foreign Origin, no token or a wrong one get nothing; a second tab over the limit
    is told so and closed; the token is in no log line and in no session's argv or environment."""
    import aiohttp

    assert served.base == f"http://127.0.0.1:{served.port}"
    assert asyncio.run(open_page(served, ""))[0] == 403  # no token: no page (no token in it)
    assert asyncio.run(open_page(served, "?token=wrong"))[0] == 403
    status, page = asyncio.run(open_page(served, f"?token={served.token}"))
    assert status == 200
    assert f"ws://127.0.0.1:{served.port}/ws/{served.token}" in page
    assert "fonts.googleapis.com" not in page  # c15: the page needs nothing from the internet
    assert "xterm-helper-textarea" in page and ".focus()" in page  # m13: keys work without a click

    # H1: another site's page (a browser sends its Origin) — refused before any screen data
    assert asyncio.run(refused(served, origin="https://evil.example")) == (403, b"")
    assert asyncio.run(refused(served, origin="null")) == (403, b"")
    # M3: another local user (no Origin, no token) — refused
    assert asyncio.run(refused(served, token="not-the-token")) == (403, b"")
    assert asyncio.run(refused(served, token="")) == (404, b"")

    async def learner() -> None:
        own_origin = {"Origin": f"http://127.0.0.1:{served.port}"}
        async with (
            aiohttp.ClientSession() as client,
            client.ws_connect(served.websocket_url(), headers=own_origin) as websocket,
        ):
            assert b"studyapp" in await read_until(websocket, b"studyapp")
            sessions = processes_under(served.process.pid)
            for pid in sessions:  # M3: the token is not readable from the session's process
                for part in ("cmdline", "environ"):
                    with_token = served.token.encode() in (PROC / str(pid) / part).read_bytes()
                    assert not with_token, f"token in /proc/{pid}/{part}"
            # the limit (--max-sessions 1): a second tab is told why and closed
            async with client.ws_connect(served.websocket_url(), headers=own_origin) as second:
                said = b""
                while (message := await second.receive(timeout=30)).type == aiohttp.WSMsgType.BINARY:
                    said += message.data
                assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                assert second.close_code == aiohttp.WSCloseCode.TRY_AGAIN_LATER
                assert b"Too many sessions" in said and b"\x1b[" not in said  # no screen
            assert await pong(websocket, "still-here")  # the first tab is untouched
            await websocket.send_json(["stdin", "q"])  # leave from Home, as a learner would

    asyncio.run(learner())
    output = served.text()
    assert output.count(served.token) == 1, output  # only the printed address; no access log
    assert "refused a websocket from another web origin: https://evil.example" in output
    assert "Traceback" not in output


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_bad_messages_are_one_line_each_and_sizes_are_bounded(served: Served) -> None:
    """M5 and the malformed-message minor: a 20000×20000 resize leaves the session's memory
    bounded (it was 2 GB); malformed messages are one console line each, no traceback, and the
    session goes on; a message over the size limit closes that session only."""
    import aiohttp

    malformed = ["this is not json", '{"a": 1}', '["stdin", 5]', '["resize", {}]', "[]", '["nope", 1]']

    async def session() -> None:
        async with aiohttp.ClientSession() as client:
            async with client.ws_connect(served.websocket_url()) as websocket:
                await read_until(websocket, b"studyapp")
                (pid,) = [p for p in processes_under(served.process.pid) if is_running(p)]
                await websocket.send_json(["resize", {"width": 20000, "height": 20000}])
                await websocket.send_json(["stdin", "t"])  # a screen change: repainted at the new size
                await read_until(websocket, b"\x1b[", timeout=60)
                assert await pong(websocket, "after-resize")  # the resize was handled before the ping
                peak_kb = int(re.search(r"VmHWM:\s+(\d+)", (PROC / str(pid) / "status").read_text()).group(1))
                assert peak_kb < 400_000, f"session peak RSS {peak_kb} kB after a huge resize"
                for text in malformed:
                    await websocket.send_str(text)
                assert await pong(websocket, "after-malformed")
                await websocket.send_str(json.dumps(["stdin", "a" * 100_000]))  # over 64 KiB
                message = await websocket.receive(timeout=30)
                while message.type == aiohttp.WSMsgType.BINARY:
                    message = await websocket.receive(timeout=30)
                assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                assert websocket.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
            async with client.ws_connect(served.websocket_url()) as websocket:  # the next tab is served
                await read_until(websocket, b"studyapp")
                await websocket.send_json(["stdin", "q"])

    asyncio.run(session())
    output = served.text()
    assert output.count("ignored a malformed websocket message") == len(malformed), output
    assert "closed a session: a websocket message over 65536 bytes" in output
    assert "Traceback" not in output and "locals" not in output


@needs_proc
@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("stop_signal", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_kill_9_of_the_server_ends_its_sessions(served: Served, stop_signal: signal.Signals) -> None:
    """M4: each session is the server's direct child (no shell between) and ends when the
    server's pipe closes — after SIGKILL, which the server cannot handle, as after SIGTERM."""
    import aiohttp

    async def open_session() -> dict[int, int]:
        async with aiohttp.ClientSession() as client, client.ws_connect(served.websocket_url()) as websocket:
            await read_until(websocket, b"studyapp")
            sessions = processes_under(served.process.pid)
            served.process.send_signal(stop_signal)
            served.process.wait(timeout=10)
            return sessions

    sessions = asyncio.run(open_session())
    assert len(sessions) == 1 and set(sessions.values()) == {served.process.pid}, sessions
    wait_until(
        lambda: not any(is_running(pid) for pid in sessions),
        30.0,
        lambda: f"session processes still running after {stop_signal.name} to the server: {sessions}",
    )


@pytest.mark.parametrize("served", [("--content", "/nonexistent-content")], indirect=True)
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_session_that_cannot_start_says_why_in_the_page(served: Served) -> None:
    """The read-only-store minor: a session whose studyapp stops at start-up (read-only data,
    missing content) shows its one-line reason in the browser, not an empty page."""
    import aiohttp

    async def session() -> bytes:
        async with aiohttp.ClientSession() as client, client.ws_connect(served.websocket_url()) as websocket:
            said = b""
            while (
                message := await websocket.receive(timeout=SESSION_TIMEOUT_S)
            ).type == aiohttp.WSMsgType.BINARY:
                said += message.data
            return said

    said = asyncio.run(session()).decode("utf-8", "replace")
    assert "studyapp could not start" in said and "content directory not found" in said, said


# -- the address it listens on and says ---------------------------------------------------------


def run_until_listening(home: Path, *options: str) -> tuple[int | None, str]:
    """Start `studyapp serve OPTIONS`; once it says its address (or ends), stop it → (rc, output)."""
    process = start_server(home, *options)
    try:
        assert process.stdout is not None
        output = b""
        deadline = time.monotonic() + START_TIMEOUT_S
        while b"token=" not in output and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:  # it ended (or is ending): its exit status
                process.wait(timeout=START_TIMEOUT_S)
                break
            output += line
        rc = process.poll()
    finally:
        stop_server(process)
    rest = process.stdout.read() if process.stdout else b""
    return rc if rc is not None else None, (output + rest).decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_host_warning_only_after_binding_and_only_off_loopback(tmp_path: Path) -> None:
    """The --host minors and c15: a loopback spelling is not warned about; an address it cannot
    use is one error line, with no warning and no banner first; a wildcard prints an address a
    browser can open and names what it really listens on."""
    rc, output = run_until_listening(tmp_path, "--host", "127.1")
    assert rc is None and "Careful" not in output, output

    rc, output = run_until_listening(tmp_path, "--host", "192.0.2.77")  # TEST-NET: not ours
    assert rc == 2 and "Careful" not in output and "Serving" not in output, output
    assert len(output.strip().splitlines()) == 1 and "Cannot listen on 192.0.2.77" in output

    rc, output = run_until_listening(tmp_path, "--host", "0.0.0.0")
    assert rc is None and "http://0.0.0.0" not in output, output
    assert re.search(r"http://127\.0\.0\.1:\d+/\?token=", output)
    assert re.search(r"Careful: listening on 0\.0\.0\.0:\d+", output)

    rc, output = run_until_listening(tmp_path, "--host", "")
    assert rc is None and "listening on ." not in output, output
    assert re.search(r"Careful: listening on \S+:\d+", output)

    with socket.socket() as taken:  # a busy port: the one error line, no banner before it
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        rc, output = run_until_listening(tmp_path, "--port", str(taken.getsockname()[1]))
    assert rc == 2 and len(output.strip().splitlines()) == 1 and "Cannot listen" in output, output


# -- the pieces, without a server ----------------------------------------------------------------


def test_serve_defaults_and_urls() -> None:
    from studyapp.cli.main import build_parser

    args = build_parser(["serve"]).parse_args(["serve"])
    assert (args.host, args.port, args.public_url, args.max_sessions) == ("127.0.0.1", 8000, None, 4)
    assert public_url("127.0.0.1", 8000, None) == "http://127.0.0.1:8000"
    assert public_url("::1", 8000, None) == "http://[::1]:8000"
    assert public_url("0.0.0.0", 8000, None) == "http://127.0.0.1:8000"
    assert public_url("", 8000, None) == "http://127.0.0.1:8000"
    assert public_url("::", 8000, None) == "http://[::1]:8000"
    assert public_url("127.0.0.1", 8000, "http://127.0.0.1:9000/") == "http://127.0.0.1:9000"
    for bound in ("127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"):
        assert address_is_loopback(bound), bound
    for bound in ("0.0.0.0", "::", "192.168.0.7", "fe80::1%eth0", "not-an-address"):
        assert not address_is_loopback(bound), bound


def test_the_session_command_is_quoted_for_each_platform_s_shell() -> None:
    """Issue 30 and M4: POSIX gets `exec` + shlex quoting (the session is the server's own
    child); Windows (cmd.exe) gets list2cmdline quoting."""
    import shlex

    args = argparse.Namespace(data_dir="/tmp/x y", content=None, lang="en")
    posix = app_command(args, platform="linux")
    assert posix.startswith("exec ") and shlex.split(posix)[1:] == [
        sys.executable,
        "-m",
        "studyapp",
        "--data-dir",
        "/tmp/x y",
        "--lang",
        "en",
    ]
    args = argparse.Namespace(data_dir=r"C:\Users\Kim Lee\study", content=None, lang=None)
    windows = app_command(args, platform="win32")
    assert windows == subprocess.list2cmdline(
        [sys.executable, "-m", "studyapp", "--data-dir", r"C:\Users\Kim Lee\study"]
    )
    assert '"C:\\Users\\Kim Lee\\study"' in windows and "exec" not in windows


def test_origins_and_sizes() -> None:
    assert origin_allowed(None, "127.0.0.1:8000", None)  # not a browser: the token decides
    assert origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000", None)
    assert origin_allowed("http://localhost:8000", "localhost:8000", None)
    assert origin_allowed("http://[::1]:8000", "[::1]:8000", None)
    assert not origin_allowed("https://evil.example", "127.0.0.1:8000", None)
    assert not origin_allowed("null", "127.0.0.1:8000", None)
    assert not origin_allowed("http://127.0.0.1:9999", "127.0.0.1:8000", None)
    # DNS rebinding: evil.example pointed at 127.0.0.1 is the same Host and Origin, but a name
    assert not origin_allowed("http://evil.example:8000", "evil.example:8000", None)
    # a tunnel or proxy under a name: only as --public-url
    assert origin_allowed("https://study.example", "127.0.0.1:8000", "https://study.example:443")
    assert clamp_size(20000, 20000) == (MAX_COLUMNS, MAX_ROWS)
    assert clamp_size(-5, 0) == (1, 1)
    assert clamp_size("x", None) == (80, 24)
    assert clamp_size(True, 10**30) == (80, MAX_ROWS)
    assert clamp_size("120", "40") == (120, 40)


def test_a_bad_port_or_session_count_is_one_line() -> None:
    from tests.conftest import run_cli

    for option, value in (("--port", "70000"), ("--max-sessions", "0")):
        result = run_cli("serve", option, value)
        assert (
            result.returncode == 2 and value in result.stderr and len(result.stderr.strip().splitlines()) == 1
        )
