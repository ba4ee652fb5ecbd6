"""The checker runner and discovery, on tiny checkers written per test: whatever a checker prints,
studyapp ends with one verdict it can trust, and never a traceback of the checker's own code."""

from __future__ import annotations

import os
import textwrap
import threading
import time
from pathlib import Path

import pytest

from studyapp.exercises import checker, registry
from studyapp.exercises.registry import ExerciseInfo, scan


def make_exercise(root: Path, check_source: str, exercise_id: str = "demo", **meta: str) -> ExerciseInfo:
    folder = root / "labs" / "lab1" / "exercises" / exercise_id
    (folder / "starter").mkdir(parents=True)
    (folder / "solution").mkdir()
    (folder / "starter" / "answer.py").write_text("x = 0\n", encoding="utf-8")
    (folder / "solution" / "answer.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "README.md").write_text("# demo\n", encoding="utf-8")
    (folder / "hints.md").write_text("first\n---\n\nsecond\n  ---  \nthird\n", encoding="utf-8")
    (folder / "check.py").write_text(textwrap.dedent(check_source), encoding="utf-8")
    lines = [f"id: {exercise_id}", "title: 데모", "lab: lab1", "checklist: [amdahl]"]
    lines += [f"{key}: {value}" for key, value in meta.items()]
    (folder / "exercise.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = scan(root / "labs")
    assert not [p for p in found.problems if not p.warning], found.problems
    return found.exercises[exercise_id]


EMIT = "import json, sys\ndef emit(**m):\n    print(json.dumps(m), flush=True)\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def run(tmp_path: Path, workspace: Path, body: str, **kwargs: object) -> checker.CheckOutcome:
    info = make_exercise(tmp_path, EMIT + textwrap.dedent(body))
    return checker.run_check(info, workspace, **kwargs)  # type: ignore[arg-type]


def test_requirements_only_in_the_result_are_used(tmp_path: Path, workspace: Path) -> None:
    outcome = run(
        tmp_path,
        workspace,
        """
        emit(type="result", verdict="failed", requirements=[
            {"name": "one", "passed": True, "message": "fine"},
            {"name": "two", "passed": False, "message": "line one\\nline two"},
        ])
        sys.exit(1)
        """,
    )
    assert outcome.verdict == "failed"
    assert [(r.name, r.passed) for r in outcome.requirements] == [("one", True), ("two", False)]
    assert outcome.requirements[1].message == "line one line two"  # always one line


def test_a_pass_with_a_failing_requirement_or_none_is_not_trusted(tmp_path: Path, workspace: Path) -> None:
    lying = run(
        tmp_path,
        workspace,
        """
        emit(type="requirement", name="one", passed=False, message="no")
        emit(type="result", verdict="passed")
        """,
    )
    assert lying.verdict == "failed"
    empty = run(tmp_path / "b", workspace, 'emit(type="result", verdict="passed")\n')
    assert empty.verdict == "error"


def test_odd_lines_are_skipped_and_unknown_types_ignored(tmp_path: Path, workspace: Path) -> None:
    outcome = run(
        tmp_path,
        workspace,
        """
        print("warming up (not json)")
        print("[1, 2, 3]")
        emit(type="telemetry", value=3)
        emit(type="requirement", passed=True)
        emit(type="requirement", name="ok", passed="yes", message=None)
        emit(type="requirement", name="real", passed=True, message="")
        emit(type="result", verdict="failed")
        sys.exit(1)
        """,
    )
    assert outcome.verdict == "failed"
    assert [(r.name, r.passed, r.message) for r in outcome.requirements] == [
        ("ok", False, ""),
        ("real", True, ""),
    ]
    assert outcome.garbage_lines == 3  # the plain line, the list, the nameless requirement


def test_events_stream_before_the_end(tmp_path: Path, workspace: Path) -> None:
    seen: list[tuple[float, str]] = []
    started = time.monotonic()
    outcome = run(
        tmp_path,
        workspace,
        """
        import time
        emit(type="progress", message="step 1")
        emit(type="requirement", name="first", passed=True, message="")
        time.sleep(1.0)
        emit(type="requirement", name="second", passed=True, message="")
        emit(type="result", verdict="passed")
        """,
        on_event=lambda e: seen.append((time.monotonic() - started, e.kind)),
    )
    assert outcome.verdict == "passed"
    assert [kind for _, kind in seen] == ["progress", "requirement", "requirement"]
    assert seen[2][0] - seen[1][0] > 0.5  # the first requirement arrived while the checker ran


def test_cancel_stops_the_checker_and_its_children(tmp_path: Path, workspace: Path) -> None:
    marker = tmp_path / "child-alive"
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    outcome = run(
        tmp_path,
        workspace,
        f"""
        import subprocess, time
        child = subprocess.Popen([sys.executable, "-c",
            "import time, pathlib\\nwhile True:\\n    pathlib.Path({str(marker)!r}).touch(); time.sleep(0.1)"])
        time.sleep(600)
        """,
        cancel=cancel,
    )
    assert outcome.verdict == "interrupted" and outcome.duration_s < 10
    time.sleep(0.5)
    before = marker.stat().st_mtime
    time.sleep(0.5)
    assert marker.stat().st_mtime == before  # the learner's child process was stopped too


def test_the_labs_root_is_on_the_checkers_path(tmp_path: Path, workspace: Path) -> None:
    (tmp_path / "labs" / "__init__.py").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "labs" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "labs" / "_exercise.py").write_text("VALUE = 42\n", encoding="utf-8")
    outcome = run(
        tmp_path,
        workspace,
        """
        import os
        from labs._exercise import VALUE
        ok = VALUE == 42 and os.getcwd() == os.path.realpath(sys.argv[sys.argv.index("--workspace") + 1])
        ok = ok and os.environ["STUDYAPP_EXERCISE_PROTOCOL"] == "jsonl" and "--quick" in sys.argv
        emit(type="requirement", name="env", passed=ok, message="")
        emit(type="result", verdict="passed" if ok else "failed")
        """,
        quick=True,
    )
    assert outcome.verdict == "passed", outcome


def test_trim_traceback_keeps_the_learners_frames(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    text = textwrap.dedent(
        f"""\
        Traceback (most recent call last):
          File "<string>", line 1, in <module>
          File "/usr/lib/python3.11/runpy.py", line 10, in run
            exec(code)
          File "{workspace}/solution.py", line 3, in add
            return a + b
        TypeError: unsupported operand
        """
    )
    trimmed = checker.trim_traceback(text, workspace)
    assert trimmed == (
        "Traceback (most recent call last):\n"
        '  File "solution.py", line 3, in add\n'
        "    return a + b\n"
        "TypeError: unsupported operand"
    )
    assert checker.trim_traceback("", workspace) is None


def test_hints_split_and_checker_hash_follows_check_and_solution(tmp_path: Path) -> None:
    info = make_exercise(tmp_path, EMIT)
    assert info.hints() == ["first", "second", "third"]
    first = info.checker_hash()
    (info.starter_dir / "answer.py").write_text("x = 5\n", encoding="utf-8")
    (info.solution_dir / "__pycache__").mkdir()
    (info.solution_dir / "__pycache__" / "answer.cpython-311.pyc").write_bytes(b"\0")
    assert info.checker_hash() == first  # the starter and caches are not the checker
    (info.solution_dir / "answer.py").write_text("x = 2\n", encoding="utf-8")
    second = info.checker_hash()
    assert second != first
    info.check_script.write_text(EMIT + "# changed\n", encoding="utf-8")
    third = info.checker_hash()
    assert third not in (first, second)
    (info.path / "driver.py").write_text("def drive(): ...\n", encoding="utf-8")  # a helper of check.py
    assert info.checker_hash() not in (first, second, third)
    fourth = info.checker_hash()
    (info.path / "README.md").write_text("# reworded\n", encoding="utf-8")
    assert info.checker_hash() == fourth  # prose is not the checker


def test_discovery_is_read_again_only_after_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Home, the plan and readiness each discover the exercises: an unchanged labs folder is not
    read again, and any saved change (metadata, a new exercise) is seen on the next call."""
    info = make_exercise(tmp_path, EMIT)
    an_hour_ago = time.time() - 3600  # files saved in the last seconds are always read again
    for path in [info.path.parent.parent, *info.path.parent.parent.rglob("*")]:
        os.utime(path, (an_hour_ago, an_hour_ago))
    reads: list[Path] = []
    real_read = registry.read_exercise
    monkeypatch.setattr(
        registry, "read_exercise", lambda meta, problems: reads.append(meta) or real_read(meta, problems)
    )
    meta = info.path / "exercise.yaml"
    first = scan(tmp_path / "labs")
    first.exercises.clear()  # a caller's copy: the memo keeps its own
    again = scan(tmp_path / "labs")
    assert reads == [meta] and list(again.exercises) == ["demo"]  # read once
    edited = meta.read_text(encoding="utf-8").replace("title: 데모", "title: 새 제목")
    meta.write_text(edited, encoding="utf-8")
    assert scan(tmp_path / "labs").exercises["demo"].title == "새 제목" and reads == [meta, meta]
    make_exercise(tmp_path, EMIT, exercise_id="second")
    assert list(scan(tmp_path / "labs").exercises) == ["demo", "second"]


def test_discovery_order_and_missing_parts(tmp_path: Path) -> None:
    make_exercise(tmp_path, EMIT, exercise_id="later", order="2")
    make_exercise(tmp_path, EMIT, exercise_id="sooner", order="1")
    broken = tmp_path / "labs" / "lab1" / "exercises" / "nocheck"
    (broken / "starter").mkdir(parents=True)
    (broken / "exercise.yaml").write_text("title: x\nchecklist: [amdahl]\n", encoding="utf-8")
    found = scan(tmp_path / "labs")
    assert list(found.exercises) == ["sooner", "later"]
    errors = [p.message for p in found.problems if not p.warning]
    assert "exercise 'nocheck' has no check.py file" in errors
    assert "exercise 'nocheck' has no solution folder" in errors


def test_a_process_left_holding_stdout_does_not_hang_the_check(tmp_path: Path, workspace: Path) -> None:
    outcome = run(
        tmp_path,
        workspace,
        """
        import subprocess
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # inherits stdout
        emit(type="requirement", name="done", passed=True, message="")
        emit(type="result", verdict="passed")
        """,
        timeout=30,
    )
    assert outcome.verdict == "passed" and outcome.duration_s < 10


def test_readme_for_picks_the_interface_language(tmp_path: Path) -> None:
    """The exercises screen shows the Korean part in ko and the *English.* summary in en."""
    info = make_exercise(tmp_path, EMIT)
    info.readme.write_text(
        "# 제목\n\n한국어 설명 `code`.\n\n---\n\n*English.* The English summary.\n", encoding="utf-8"
    )
    assert info.readme_for("ko") == "한국어 설명 `code`."
    assert info.readme_for("en") == "The English summary."  # the marker itself is not shown (N22)
    info.readme.write_text("# Title only Korean\n\n본문.\n", encoding="utf-8")
    assert info.readme_for("en") == "본문."  # no English part: the whole text
