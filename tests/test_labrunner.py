"""The lab runner against tiny fake labs: results, crashes, garbage, hangs, Ctrl+C, recording."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studyapp.labrunner import registry
from studyapp.labrunner.runner import run_lab
from studyapp.progress.store import ProgressStore
from tests.conftest import REPO, InProcessCli, run_cli

FAKE_LABS = {
    "okay": """
import sys
from labs._protocol import progress, run_lab
def main(argv):
    for n in range(3):
        progress("counting", (n + 1) / 3, f"step {n + 1}")
    print("library noise on stderr", file=sys.stderr)
    return {"summary": "counted " + " ".join(sys.argv[1:]), "tables": [{"title": "t", "columns": ["n"], "rows": [[1], [2]]}],
            "findings": ["측정했다"], "value": 42}
run_lab("okay", main)
""",
    "crash": """
from labs._protocol import run_lab
def main(argv):
    raise ZeroDivisionError("planted crash")
run_lab("crash", main)
""",
    "garbage": """
print("hello, I am not JSON")
print("[1, 2, 3]")
""",
    "hang": """
import time
from labs._protocol import progress
progress("waiting", 0.1, "forever")
time.sleep(600)
""",
    "picky": """
import argparse
from labs._protocol import parse_args, run_lab
def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--out")
    parser.add_argument("--quick", action="store_true")
    args = parse_args(parser, argv)
    return {"summary": f"size {args.size}"}
run_lab("picky", main)
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
        question = "check_question: {statement: 측정은 중요하다., answer: O, explanation: 그렇다.}\n"
        (folder / "lab.yaml").write_text(
            f"title: {name} lab\ntopics: [demo]\nchecklist: []\ntimeout_s: 30\nquick_timeout_s: 3\n{question}",
            encoding="utf-8",
        )
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    return labs


def test_ok_lab_streams_progress_and_keeps_stderr_off_stdout(fake_labs: Path, tmp_path: Path) -> None:
    events = []
    outcome = run_lab(registry.get("okay"), ["--flag"], out_dir=tmp_path / "out", on_progress=events.append)
    assert outcome.status == "ok" and outcome.result is not None
    assert outcome.result["value"] == 42 and "--flag" in outcome.result["summary"]
    assert [e.fraction for e in events] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert "library noise" in (tmp_path / "out" / "lab-stderr.log").read_text()
    assert json.loads((tmp_path / "out" / "result.json").read_text())["value"] == 42


@pytest.mark.parametrize(
    ("lab", "reason", "needle"),
    [
        ("crash", "crash", "planted crash"),
        ("garbage", "garbage", "without a result"),
        ("picky", "usage", "--size"),
    ],
)
def test_failures_become_one_line(
    fake_labs: Path, tmp_path: Path, lab: str, reason: str, needle: str
) -> None:
    outcome = run_lab(registry.get(lab), [], out_dir=tmp_path / "out")
    assert outcome.status == "failed" and outcome.reason == reason
    assert needle in outcome.message and "\n" not in outcome.message


def test_hanging_lab_times_out(fake_labs: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    outcome = run_lab(registry.get("hang"), [], quick=True, out_dir=tmp_path / "out")
    assert outcome.status == "failed" and outcome.reason == "timeout"
    assert time.monotonic() - started < 15


def test_cli_json_records_the_run(fake_labs: Path, isolated_home: Path, studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("lab", "okay", "--json", "--quick")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)  # nothing else on stdout
    assert payload["lab"] == "okay" and payload["status"] == "ok"
    crashed = studyapp_cli("lab", "crash", "--json")
    assert crashed.returncode == 1 and json.loads(crashed.stdout)["status"] == "failed"
    assert "Traceback" not in crashed.stderr and len(crashed.stderr.strip().splitlines()) == 1
    runs = ProgressStore.in_dir(isolated_home).lab_runs()
    assert [(r.lab, r.status) for r in runs] == [("okay", "ok"), ("crash", "failed")]
    assert runs[0].artifact_dir and Path(runs[0].artifact_dir).is_dir()
    progress = json.loads(studyapp_cli("progress", "--json").stdout)
    assert progress["labs"]["okay"]["last_status"] == "ok" and progress["labs"]["crash"]["runs"] == 1


def test_cli_report_and_list(fake_labs: Path) -> None:
    """Smoke: a real `python -m studyapp` runs a lab and lists the run."""
    report = run_cli("lab", "okay", env={"COLUMNS": "100"})
    assert report.returncode == 0 and "측정했다" in report.stdout
    listing = run_cli("lab", "list")
    assert listing.returncode == 0 and "okay" in listing.stdout and "ok" in listing.stdout


def test_unknown_lab_and_bad_options_exit_2(fake_labs: Path, studyapp_cli: InProcessCli) -> None:
    unknown = studyapp_cli("lab", "nope")
    assert unknown.returncode == 2 and "unknown lab 'nope'" in unknown.stderr
    picky = studyapp_cli("lab", "picky", "--size", "abc")
    assert picky.returncode == 2 and "Traceback" not in picky.stderr
    assert len(picky.stderr.strip().splitlines()) == 1


def test_ctrl_c_cancels_and_records(fake_labs: Path, isolated_home: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen(
        [sys.executable, "-m", "studyapp", "lab", "hang"],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # wait until the run is recorded as started
        if (isolated_home / "progress.db").exists() and ProgressStore.in_dir(isolated_home).lab_runs():
            break
        time.sleep(0.1)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 130
    assert "Traceback" not in err
    assert [r.status for r in ProgressStore.in_dir(isolated_home).lab_runs()] == ["cancelled"]


def test_missing_torch_is_one_line_and_recorded(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    fake = tmp_path / "no-torch" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ModuleNotFoundError("No module named torch", name="torch")\n')
    result = studyapp_cli("lab", "profiler", "--quick", env={"PYTHONPATH": str(fake.parent)})
    assert result.returncode == 2
    assert result.stderr.strip() == "studyapp: profiler: the profiler lab needs PyTorch: pip install torch"
    assert [r.status for r in ProgressStore.in_dir(isolated_home).lab_runs()] == ["failed"]


def test_a_lab_never_imports_the_learners_files_from_the_current_folder(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """A learner's `statistics.py` (or `runpy.py`) where they type `studyapp lab` must not replace
    the standard library's in the lab (issue 34, reliability review M2): the real amdahl lab."""
    folder = tmp_path / "my files"
    folder.mkdir()
    for name in ("statistics", "runpy", "queue", "json"):
        (folder / f"{name}.py").write_text(
            f'raise SystemExit("the learner\'s {name}.py ran")\n', encoding="utf-8"
        )
    result = studyapp_cli("lab", "amdahl", "--quick", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ".py ran" not in result.stdout + result.stderr


def test_the_pipeline_lab_uses_the_standard_queue_not_the_learners(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """EV.cwd-shadow-queue (reliability review 2026-12-second M2): a learner's `queue.py` where
    they type `studyapp lab pipeline` was run by the lab, which then "crashed" with `module 'queue'
    has no attribute 'Queue'`. The real pipeline lab, from that folder; its run is recorded ok."""
    folder = tmp_path / "my files"
    folder.mkdir()
    (folder / "queue.py").write_text('raise SystemExit("the learner\'s queue.py ran")\n', encoding="utf-8")
    result = studyapp_cli("lab", "pipeline", "--quick", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "queue.py ran" not in result.stdout + result.stderr
    assert "crashed" not in result.stderr
    assert [r.status for r in ProgressStore.in_dir(isolated_home).lab_runs()] == ["ok"]
