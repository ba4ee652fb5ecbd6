"""Start the real TensorBoard profiler plugin on a logdir, read its Overview, stop it.

Optional: needs `pip install 'studyapp[tensorboard]'` (tensorboard 2.21 and torch-tb-profiler
0.4.3, the plugin's last release). The server listens on 127.0.0.1 only, on a free port, and is
always stopped when the lab ends. `plugin_overview` reads the same numbers the Overview page
draws, from the plugin's HTTP API (`/data/plugin/pytorch_profiler/overview`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from labs._protocol import LabDependencyError

API = "/data/plugin/pytorch_profiler"
INSTALL_HINT = (
    "the TensorBoard profiler plugin is not installed: pip install 'studyapp[tensorboard]' "
    "(tensorboard 2.21 + torch-tb-profiler 0.4.3, deprecated since 2023) — the maintained viewer is "
    "Perfetto: open the .pt.trace.json in https://ui.perfetto.dev"
)


def available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("tensorboard", "torch_tb_profiler"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(logdir: str, timeout_s: float = 60.0, attempts: int = 2) -> tuple[subprocess.Popen[bytes], str]:
    """Launch TensorBoard on `logdir`; return the process and its URL once it answers.

    The port is free when picked but may be taken before TensorBoard binds it: TensorBoard then
    exits at once, and another free port is tried (`attempts` in all).
    """
    if not available():
        raise LabDependencyError(INSTALL_HINT)
    failure = "tensorboard did not start"
    for _ in range(attempts):
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        proc = _launch(logdir, port)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                runs = _get(url, "/runs")
                if runs.get("runs") and not runs.get("loading"):
                    return proc, url
            except (OSError, ValueError):
                pass
            time.sleep(0.5)
        if proc.poll() is None:
            stop(proc)
            raise RuntimeError(f"tensorboard did not load {logdir} within {timeout_s:.0f} s")
        failure = (
            f"tensorboard exited with {proc.returncode} before it answered on 127.0.0.1:{port} "
            "(the port was taken meanwhile?)"
        )
    raise RuntimeError(failure)


def _launch(logdir: str, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.pop("STUDYAPP_LAB_PROTOCOL", None)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tensorboard.main",
            "--logdir",
            logdir,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _get(url: str, path: str, **params: str) -> Any:
    query = ("?" + urllib.parse.urlencode(params)) if params else ""
    with urllib.request.urlopen(f"{url}{API}{path}{query}", timeout=20) as response:  # 127.0.0.1 only
        return json.loads(response.read().decode("utf-8"))


def plugin_overview(url: str, run: str) -> dict[str, Any]:
    """The plugin's Overview of one run: percent per category of its average step, and the step time."""
    worker = _get(url, "/workers", run=run, view="Overview")[0]
    span = (_get(url, "/spans", run=run, worker=worker, view="Overview") or [""])[0]
    data = _get(url, "/overview", run=run, worker=worker, span=span, view="Overview")
    average = data["performance"][0]
    return {
        "run": run,
        "worker": worker,
        "step_us": average["value"],
        "pct": {child["name"]: float(child["extra"]) for child in average.get("children", [])},
        "recommendations": data.get("recommendations"),
    }


def runs(url: str) -> list[str]:
    return list(_get(url, "/runs").get("runs", []))


def url_error_text(exc: Exception) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}"
    return str(exc)
