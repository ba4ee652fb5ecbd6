"""`studyapp serve` (issue 23 §3): the page is served over HTTP on loopback and a websocket session
starts the TUI, which paints Home into it. Bounded: every wait has a deadline, the server is a
child process on a free loopback port, and it is stopped at the end whatever happened."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studyapp.cli.serve import app_command, is_loopback, public_url
from tests.conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

START_TIMEOUT_S = 60.0
SESSION_TIMEOUT_S = 90.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def fetch_page_and_open_a_session(port: int) -> tuple[str, bytes]:
    import aiohttp  # textual-serve's own dependency

    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
    async with aiohttp.ClientSession() as client:
        while True:  # the server needs a moment to listen
            try:
                async with client.get(base + "/", timeout=aiohttp.ClientTimeout(total=5)) as response:
                    assert response.status == 200
                    page = await response.text()
                    break
            except aiohttp.ClientConnectionError:
                assert time.monotonic() < deadline, "the server did not start listening"
                await asyncio.sleep(0.2)
        received = b""
        async with client.ws_connect(f"{base}/ws?width=80&height=24") as websocket:
            end = time.monotonic() + SESSION_TIMEOUT_S
            while b"studyapp" not in received:
                left = end - time.monotonic()
                assert left > 0, f"no Home screen over the websocket; got {received[-300:]!r}"
                message = await websocket.receive(timeout=left)
                if message.type == aiohttp.WSMsgType.BINARY:
                    received += message.data
                elif message.type in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSED,
                    aiohttp.WSMsgType.ERROR,
                ):
                    raise AssertionError(f"the session ended early; got {received[-300:]!r}")
            await websocket.send_json(["stdin", "q"])  # leave from Home, as a learner would
    return page, received


def test_serve_over_http_and_a_websocket_on_loopback(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, STUDYAPP_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO), STUDYAPP_LANG="ko")
    server = subprocess.Popen(
        [sys.executable, "-m", "studyapp", "serve", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # the app processes it starts are stopped with it
    )
    try:
        page, received = asyncio.run(fetch_page_and_open_a_session(port))
        assert f"ws://127.0.0.1:{port}/ws" in page  # the page's websocket goes back to loopback
        assert b"studyapp" in received
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            output, _ = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            output, _ = server.communicate(timeout=10)
    text = output.decode("utf-8", "replace")
    assert f"http://127.0.0.1:{port}" in text  # the address it told the learner


def test_serve_defaults_and_urls() -> None:
    from studyapp.cli.main import build_parser

    args = build_parser(["serve"]).parse_args(["serve"])
    assert (args.host, args.port, args.public_url) == ("127.0.0.1", 8000, None)
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.0.7")
    assert public_url("127.0.0.1", 8000, None) == "http://127.0.0.1:8000"
    assert public_url("::1", 8000, None) == "http://[::1]:8000"
    assert public_url("127.0.0.1", 8000, "http://127.0.0.1:9000/") == "http://127.0.0.1:9000"
    args = build_parser(["serve"]).parse_args(["--lang", "en", "serve", "--data-dir", "/tmp/x y"])
    command = app_command(args)
    assert command.endswith("-m studyapp --data-dir '/tmp/x y' --lang en")


def test_a_bad_port_is_one_line() -> None:
    from tests.conftest import run_cli

    result = run_cli("serve", "--port", "70000")
    assert (
        result.returncode == 2 and "70000" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    )
