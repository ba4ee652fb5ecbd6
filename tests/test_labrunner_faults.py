"""The lab runner under faults: an unusable --out, a full disk, hostile lab text, a killed studyapp,
and hostile `--trace` files (review ../shared/reviews/reliability-bad-input.md, section 6)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studyapp.labrunner import registry, runner
from studyapp.progress.store import ProgressStore
from tests.conftest import REPO, InProcessCli

ESC_TEXT = "\x1b]0;PWNED\x07\x1b[31m빨강\x9b2J"

FAKE_LABS = {
    "loud": f"""
from labs._protocol import progress, run_lab
def main(argv):
    progress({ESC_TEXT!r}, 0.5, {ESC_TEXT!r})
    return {{"summary": {("요약 " + ESC_TEXT)!r}, "tables": [{{"title": {ESC_TEXT!r}, "columns": ["c"], "rows": [[{ESC_TEXT!r}]]}}],
            "findings": [{ESC_TEXT!r}], "artifacts": {{"x": {ESC_TEXT!r}}}}}
run_lab("loud", main)
""",
    "shouty": f"""
from labs._protocol import LabUsageError, run_lab
def main(argv):
    raise LabUsageError({("나쁜 입력 " + ESC_TEXT)!r})
run_lab("shouty", main)
""",
    "crash": """
from labs._protocol import run_lab
def main(argv):
    raise OSError(28, "No space left on device")
run_lab("crash", main)
""",
    "hang": """
import time
from labs._protocol import progress
progress("waiting", 0.1, "forever")
time.sleep(120)
""",
}


@pytest.fixture
def fake_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    labs = tmp_path / "fake" / "labs"
    labs.mkdir(parents=True)
    (labs / "__init__.py").write_text("", encoding="utf-8")
    for module in ("_wire.py", "_protocol.py"):  # _protocol.py writes its lines with _wire.py
        shutil.copy(REPO / "labs" / module, labs / module)
    for name, code in FAKE_LABS.items():
        folder = labs / name
        folder.mkdir()
        (folder / "__init__.py").write_text("", encoding="utf-8")
        (folder / "__main__.py").write_text(code, encoding="utf-8")
        (folder / "lab.yaml").write_text(
            f"title: {name} lab\ntopics: [demo]\nchecklist: []\ntimeout_s: 60\nquick_timeout_s: 60\n",
            encoding="utf-8",
        )
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    return labs


# -- --out that cannot be created ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: (tmp / "a-file").write_text("x") and tmp / "a-file", "it is a file, not a directory"),
        (lambda tmp: (tmp / "f").write_text("x") and tmp / "f" / "below", "Not a directory"),
        (lambda tmp: Path("/proc/studyapp-test-out"), ""),
    ],
    ids=["existing-file", "below-a-file", "proc"],
)
def test_unusable_out_is_one_line_and_records_nothing(
    tmp_path: Path, isolated_home: Path, make: object, expected: str, studyapp_cli: InProcessCli
) -> None:
    # review 6 #164–166: internal error from mkdir, and a 'cancelled / interrupted' record left behind
    out = make(tmp_path)  # type: ignore[operator]
    result = studyapp_cli("lab", "errors", "--quick", "--out", str(out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"studyapp: cannot use --out {out}: ")
    assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert ProgressStore.in_dir(isolated_home).lab_runs() == []


# -- a full disk ------------------------------------------------------------------------------------


def test_a_crash_on_a_full_disk_says_so(
    fake_labs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # review 6 #168–173: only "failed with exit code 1 (details: …/lab-stderr.log)", and the log
    # was empty (it is on the same full disk). A real full tmpfs needs root; the free space is faked.
    real = shutil.disk_usage
    monkeypatch.setattr(
        runner.shutil,
        "disk_usage",
        lambda path: real(path)._replace(free=0) if "out" in str(path) else real(path),
    )
    outcome = runner.run_lab(registry.get("crash"), out_dir=tmp_path / "out")
    assert outcome.status == "failed"
    assert "No space left on device" in outcome.message
    assert f"no space left on the disk of {tmp_path / 'out'}" in outcome.message


# -- text from a lab -----------------------------------------------------------------------------------


def test_lab_text_reaches_the_terminal_without_control_characters(
    fake_labs: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    result = studyapp_cli("lab", "loud")
    assert result.returncode == 0, result.stderr
    for stream in (result.stdout, result.stderr):
        assert "\x1b" not in stream and "\x07" not in stream and "\x9b" not in stream
    assert "요약 \\x1b]0;PWNED\\x07" in result.stdout  # shown, visibly escaped
    listing = studyapp_cli("lab", "list")
    assert "\x1b" not in listing.stdout
    failed = studyapp_cli("lab", "shouty")
    assert failed.returncode == 2
    assert "\x1b" not in failed.stderr and "나쁜 입력 \\x1b]0;PWNED" in failed.stderr


# -- a studyapp killed during a run --------------------------------------------------------------------


def test_a_run_of_a_killed_studyapp_is_not_running_for_ever(
    fake_labs: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    errors = isolated_home.parent / "hang-stderr.txt"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "studyapp", "lab", "hang"],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
    try:
        # Under load (two suites at once) studyapp may take long to start: wait for its record, and
        # say so if it never came, instead of going on to read a run that is not there yet.
        deadline = time.monotonic() + 90
        runs: list[object] = []
        while time.monotonic() < deadline and process.poll() is None:
            if (isolated_home / "progress.db").exists():
                store = ProgressStore.in_dir(isolated_home)
                runs = store.lab_runs()
                store.close()
            if runs:  # a recorded run holds its lock already (runner.run_and_record)
                assert (Path(runs[0].artifact_dir) / runner.RUN_LOCK).exists()  # type: ignore[attr-defined]
                break
            time.sleep(0.1)
        # (a CI run once got here with no run: what studyapp said, and whether it had ended, says why)
        said = errors.read_text(encoding="utf-8", errors="replace")[-1500:]
        assert runs, f"studyapp lab hang never recorded its run (exit {process.poll()}): {said!r}"
        listing = json.loads(studyapp_cli("lab", "list", "--json").stdout)
        assert {row["id"]: row["last_status"] for row in listing}["hang"] == "running"  # alive: left alone
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # its process group; the lab has its own session
        _kill_labs_under(fake_labs.parent)
    listing = json.loads(studyapp_cli("lab", "list", "--json").stdout)
    row = {row["id"]: row for row in listing}["hang"]
    assert row["last_status"] == "cancelled" and row["last_summary"].startswith("interrupted")
    (run,) = ProgressStore.in_dir(isolated_home).lab_runs()
    assert run.ended_at is not None


def _kill_labs_under(marker: Path) -> None:
    for proc in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        try:
            if proc.name.isdigit() and str(marker).encode() in (proc / "cmdline").read_bytes():
                os.kill(int(proc.name), signal.SIGKILL)
        except OSError:
            continue


# -- hostile --trace files -----------------------------------------------------------------------------


def _profiler(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """The profiler lab by hand (no torch needed in --trace mode), optionally with a lower size limit."""
    lower = f"import labs.profiler.trace_analysis as t; t.MAX_TRACE_BYTES = {limit}; " if limit else ""
    code = f"{lower}from labs._protocol import run_lab; from labs.profiler.lab import main; run_lab('profiler', main)"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _steps(durations: list[object]) -> list[dict[str, object]]:
    events: list[dict[str, object]] = []
    for n, dur in enumerate(durations, start=1):
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{n}",
                "pid": 1,
                "tid": 1,
                "ts": n * 1000,
                "dur": dur,
            }
        )
        events.append(
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::mm",
                "pid": 1,
                "tid": 1,
                "ts": n * 1000 + 1,
                "dur": 100,
            }
        )
    return events


def test_a_gzip_bomb_stops_at_the_limit(tmp_path: Path) -> None:
    # review 6 #196–197: gzip.decompress() of a 4 MB file allocated 4 GiB. Here the limit is lowered
    # to 8 MB and the file inflates to 64 MB; the real limit is 2 GB.
    bomb = tmp_path / "bomb.pt.trace.json.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as handle:
        handle.write(b"[")
        for _ in range(64):
            handle.write(b" " * (1024 * 1024))
        handle.write(b"]")
    result = _profiler("--trace", str(bomb), limit=8 * 1024 * 1024)
    assert result.returncode == 2, result.stderr[-2000:]
    assert (
        result.stderr.strip().splitlines()[-1]
        == f"profiler: {bomb} is over 8 MB once decompressed: too big for this lab (a real trace is far smaller)"
    )


def test_a_small_gzip_trace_still_reads(tmp_path: Path) -> None:
    trace = tmp_path / "ok.json.gz"
    trace.write_bytes(gzip.compress(json.dumps({"traceEvents": _steps([900, 900])}).encode()))
    result = _profiler("--trace", str(trace), limit=8 * 1024 * 1024)
    assert result.returncode == 0, result.stderr[-2000:]


def test_deeply_nested_json_is_one_line(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:  # review 6 #190: "lab crashed"
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = studyapp_cli("lab", "profiler", "--trace", str(nested))
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"studyapp: profiler: {nested} is nested too deeply to be a Chrome trace"


def test_an_endless_device_is_refused(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:  # review 6 #202: read /dev/zero to MemoryError
    result = studyapp_cli("lab", "profiler", "--trace", "/dev/zero")
    assert result.returncode == 2
    assert "is not a regular file" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_nan_and_infinity_durations_never_print_nan(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:  # review 6 #186
    text = json.dumps({"traceEvents": _steps(["NAN", "INF", 900, "HUGE"])})
    text = text.replace('"NAN"', "NaN").replace('"INF"', "Infinity").replace('"HUGE"', "1e999")
    trace = tmp_path / "odd-values.json"
    trace.write_text(text, encoding="utf-8")
    result = studyapp_cli("lab", "profiler", "--json", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    odd = re.compile(r"\b(nan|inf|infinity)\b", re.IGNORECASE)  # not the 'nan' in tmp_path's name
    assert not odd.search(result.stdout), odd.search(result.stdout)
    report = json.loads(result.stdout)
    assert report["steps"] == [3]  # the malformed steps are skipped like other malformed events
    plain = studyapp_cli("lab", "profiler", "--trace", str(trace))
    assert plain.returncode == 0 and not odd.search(plain.stdout), plain.stdout


def test_a_lab_run_by_hand_prints_no_control_characters(fake_labs: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "STUDYAPP_LAB_PROTOCOL"}
    for lab, code in (("loud", 0), ("shouty", 2)):
        result = subprocess.run(
            [sys.executable, "-m", f"labs.{lab}"],
            cwd=fake_labs.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == code, result.stderr
        assert "\x1b" not in result.stdout + result.stderr
        assert "\\x1b]0;PWNED" in result.stdout + result.stderr


def test_a_recorded_run_holds_its_lock_from_the_moment_it_is_recorded(
    fake_labs: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """The CI flake above: a studyapp killed between recording its run and taking the run's lock
    left a lockless "running" record, which the sweep leaves alone for STALE_GRACE. The lock now
    comes first: at the moment the run is recorded, a sweep already sees a live owner."""
    store = ProgressStore.in_dir(isolated_home)
    seen_at_record: list[bool | None] = []
    record = store.start_lab_run

    def start_lab_run(lab: str, artifact_dir: str) -> str:
        seen_at_record.append(runner._owner_alive(artifact_dir))
        return record(lab, artifact_dir)

    store.start_lab_run = start_lab_run  # type: ignore[method-assign]
    info = registry.get("crash")  # any lab: this one ends at once
    runner.run_and_record(store, info, out_dir=tmp_path / "out", quick=True)
    assert seen_at_record == [True]
    assert runner._owner_alive(str(tmp_path / "out")) is False  # released when the run ended
