"""`studyapp exercise ...` end to end, on a toy exercise (tests/exercise_fixture): in-process
through `studyapp.cli.main` (the checker is still a real child process), and in a real
`python -m studyapp` where a test sends Ctrl+C or watches a running command.

The toy checker follows docs/EXERCISES.md and misbehaves on request (TOY_CHECKER_MODE), so every
way a checker can end — pass, fail, garbage, crash, hang, undecided, refusal, Ctrl+C — is seen
through the command a learner types.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, InProcessCli

FIXTURE_LABS = Path(__file__).resolve().parent / "exercise_fixture" / "labs"
TOY = "toy-sum"
SOLVED = '"""Write add(a, b)."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'


@pytest.fixture
def labs(tmp_path: Path) -> Path:
    target = tmp_path / "labs"
    shutil.copytree(FIXTURE_LABS, target)
    return target


@pytest.fixture
def env(labs: Path, isolated_home: Path) -> dict[str, str]:
    return {"STUDYAPP_LABS": str(labs), "STUDYAPP_HOME": str(isolated_home)}


ExerciseCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(studyapp_cli: InProcessCli) -> ExerciseCli:
    """`cli(env, "check", TOY, TOY_CHECKER_MODE="crash")`: `studyapp exercise ...` with `env` set."""

    def exercise(env: dict[str, str], *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return studyapp_cli("exercise", *args, env={**env, **extra})

    return exercise


def rows(home: Path, table: str) -> list[sqlite3.Row]:
    db = sqlite3.connect(home / "progress.db")
    db.row_factory = sqlite3.Row
    try:
        return db.execute(
            f"SELECT * FROM {table} ORDER BY id" if table != "exercise_hints" else f"SELECT * FROM {table}"
        ).fetchall()
    finally:
        db.close()


def started(cli: ExerciseCli, env: dict[str, str], home: Path) -> Path:
    result = cli(env, "start", TOY)
    assert result.returncode == 0, result.stderr
    workspace = home / "exercises" / TOY
    assert str(workspace) in result.stdout
    return workspace


# -- discovery and list --------------------------------------------------------------------------


def test_list_json_has_the_fields_and_status_moves(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    result = cli(env, "list", "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["id"] == TOY and row["title"] == "두 수 더하기" and row["lab"] == "toy"
    assert row["checklist"] == ["amdahl"] and row["status"] == "not started"
    assert Path(row["solution_path"], "adder.py").is_file()
    workspace = started(cli, env, isolated_home)
    assert cli(env, "check", TOY).returncode == 1
    assert json.loads(cli(env, "list", "--json").stdout)[0]["status"] == "failing"
    (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
    assert cli(env, "check", TOY).returncode == 0
    listed = json.loads(cli(env, "list", "--json").stdout)[0]
    assert listed["status"] == "passed" and listed["workspace"] == str(workspace)
    text = cli(env, "list")
    assert text.returncode == 0 and TOY in text.stdout and "passed" in text.stdout


def test_a_broken_exercise_yaml_is_one_line_and_studyapp_check_reports_it(
    env: dict[str, str], labs: Path, cli: ExerciseCli, studyapp_cli: InProcessCli
) -> None:
    second = labs / "toy" / "exercises" / "broken"
    shutil.copytree(labs / "toy" / "exercises" / TOY, second)
    (second / "exercise.yaml").write_text("id: broken\ntitle: [unclosed\n", encoding="utf-8")
    listed = cli(env, "list", "--json")
    assert listed.returncode == 0
    assert [r["id"] for r in json.loads(listed.stdout)] == [TOY]  # the good one still lists
    (problem,) = listed.stderr.strip().splitlines()
    assert "broken/exercise.yaml:" in problem and "YAML" in problem
    checked = studyapp_cli("check", env=env)
    assert checked.returncode == 2
    assert any("broken/exercise.yaml:" in line for line in checked.stderr.splitlines())
    assert "Traceback" not in checked.stderr


def test_duplicate_ids_and_bad_fields_are_problems(
    env: dict[str, str], labs: Path, studyapp_cli: InProcessCli
) -> None:
    copy = labs / "toy" / "exercises" / "copy"
    shutil.copytree(labs / "toy" / "exercises" / TOY, copy)
    (copy / "exercise.yaml").write_text(
        "id: toy-sum\ntitle: 복사본\nlab: toy\nchecklist: [no-such-item]\ntimeout_s: -1\n", encoding="utf-8"
    )
    checked = studyapp_cli("check", env=env)
    assert checked.returncode == 2
    assert "copy/exercise.yaml:1: exercise id 'toy-sum' must match its folder name 'copy'" in checked.stderr
    assert "copy/exercise.yaml:5: 'timeout_s' must be a positive number" in checked.stderr
    (copy / "exercise.yaml").write_text(
        "title: 복사본\nlab: toy\nchecklist: [no-such-item]\n", encoding="utf-8"
    )
    checked = studyapp_cli("check", env=env)
    assert "copy/exercise.yaml:3: unknown checklist id 'no-such-item'" in checked.stderr


def test_unknown_exercise_and_usage_are_exit_2(env: dict[str, str], cli: ExerciseCli) -> None:
    for args in (("start", "nope"), ("check", "nope"), ("hint", "nope"), ("exercise-typo",), ()):
        result = cli(env, *args)
        assert result.returncode == 2, args
        assert "Traceback" not in result.stderr


# -- start ------------------------------------------------------------------------------------------


def test_start_copies_the_starter_and_never_overwrites_edits(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    workspace = started(cli, env, isolated_home)
    starter = (FIXTURE_LABS / "toy" / "exercises" / TOY / "starter" / "adder.py").read_text(encoding="utf-8")
    assert (workspace / "adder.py").read_text(encoding="utf-8") == starter
    again = cli(env, "start", TOY)  # untouched: fine, nothing copied
    assert again.returncode == 0 and "already started" in again.stdout
    (workspace / "adder.py").write_text("# my work\n", encoding="utf-8")
    refused = cli(env, "start", TOY)
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (workspace / "adder.py").read_text(encoding="utf-8") == "# my work\n"
    forced = cli(env, "start", TOY, "--force")
    assert forced.returncode == 0
    assert (workspace / "adder.py").read_text(encoding="utf-8") == starter
    (backup,) = workspace.parent.glob(f"{TOY}.bak-*")
    assert (backup / "adder.py").read_text(encoding="utf-8") == "# my work\n"  # moved aside, not lost


def test_start_never_moves_an_unrelated_folder(env: dict[str, str], tmp_path: Path, cli: ExerciseCli) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    (folder / "thesis.tex").write_text("important", encoding="utf-8")
    for extra in ((), ("--force",)):
        result = cli(env, "start", TOY, "--dir", str(folder), *extra)
        assert result.returncode == 2 and "choose an empty folder" in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["thesis.tex"]
    assert not list(tmp_path.glob("projects.bak-*"))


def test_start_dir_is_remembered_by_check(env: dict[str, str], tmp_path: Path, cli: ExerciseCli) -> None:
    chosen = tmp_path / "my work" / "toy"
    result = cli(env, "start", TOY, "--dir", str(chosen))
    assert result.returncode == 0 and str(chosen) in result.stdout
    (chosen / "adder.py").write_text(SOLVED, encoding="utf-8")
    checked = cli(env, "check", TOY)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert str(chosen) in checked.stdout
    again = cli(env, "start", TOY)  # without --dir: the workspace started before, not a second one
    assert again.returncode == 2 and str(chosen) in again.stderr


# -- check ------------------------------------------------------------------------------------------


def test_check_reports_each_requirement_and_trims_the_traceback(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    started(cli, env, isolated_home)
    result = cli(env, "check", TOY)
    assert result.returncode == 1
    out = result.stdout
    assert "✗ adds small numbers — add() raised: NotImplementedError: add is not written yet" in out
    assert "✗ adds negative numbers" in out
    assert 'File "adder.py", line 6, in add' in out  # the learner's frame, relative to the workspace
    assert "<string>" not in out and "check.py" not in out  # no frame of the checker's own code
    assert "not yet: 2 of 2 requirements" in out and "studyapp exercise hint toy-sum" in out


def test_requirements_listed_only_in_the_result_are_shown(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    started(cli, env, isolated_home)
    result = cli(env, "check", TOY, TOY_CHECKER_MODE="result-only")
    assert result.returncode == 1
    assert result.stdout.count("✗ adds small numbers") == 1 and "✗ adds negative numbers" in result.stdout


def test_check_json_and_the_stored_rows(env: dict[str, str], isolated_home: Path, cli: ExerciseCli) -> None:
    workspace = started(cli, env, isolated_home)
    failed = json.loads(cli(env, "check", TOY, "--json").stdout)
    assert failed["verdict"] == "failed" and failed["passed"] is False
    assert [r["passed"] for r in failed["requirements"]] == [False, False]
    (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
    result = cli(env, "check", TOY, "--json", "--quick")
    assert result.returncode == 0
    passed = json.loads(result.stdout)
    assert passed["verdict"] == "passed" and passed["learner_traceback"] is None
    checks = rows(isolated_home, "exercise_checks")
    assert [(r["exercise_id"], r["verdict"], r["passed"]) for r in checks] == [
        (TOY, "failed", 0),
        (TOY, "passed", 1),
    ]
    assert checks[0]["checker_hash"] == checks[1]["checker_hash"] == passed["checker_hash"]
    assert checks[1]["duration_s"] > 0
    assert json.loads(checks[1]["details_json"])["requirements"][0]["name"] == "adds small numbers"


def test_check_any_folder_with_path(env: dict[str, str], tmp_path: Path, cli: ExerciseCli) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "adder.py").write_text(SOLVED, encoding="utf-8")
    assert cli(env, "check", TOY, "--path", str(folder)).returncode == 0
    missing = cli(env, "check", TOY, "--path", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    solution = json.loads(cli(env, "list", "--json").stdout)[0]["solution_path"]
    refused = cli(env, "check", TOY, "--path", solution)
    assert refused.returncode == 2 and "inside the exercise itself" in refused.stderr


def test_check_without_a_workspace_says_start_first(env: dict[str, str], cli: ExerciseCli) -> None:
    result = cli(env, "check", TOY)
    assert result.returncode == 2
    assert "studyapp exercise start toy-sum" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("mode", "code", "verdict", "words"),
    [
        ("garbage", 1, "error", "not the checker protocol"),
        ("crash", 1, "error", "RuntimeError: the checker itself broke"),
        ("undecided", 3, "undecided", "too busy"),
        ("hang", 1, "timeout", "did not finish within 2 s"),
    ],
)
def test_a_misbehaving_checker_ends_in_one_clear_verdict(
    env: dict[str, str], isolated_home: Path, mode: str, code: int, verdict: str, words: str, cli: ExerciseCli
) -> None:
    started(cli, env, isolated_home)
    began = time.monotonic()
    result = cli(env, "check", TOY, "--timeout", "2", TOY_CHECKER_MODE=mode)
    assert time.monotonic() - began < 30
    assert result.returncode == code
    assert words in result.stdout
    assert "check.py" not in result.stdout + result.stderr  # never a traceback of the checker
    assert "Traceback" not in result.stderr
    assert rows(isolated_home, "exercise_checks")[-1]["verdict"] == verdict


def test_a_refusing_checker_or_a_missing_module_is_exit_2(
    env: dict[str, str], isolated_home: Path, labs: Path, cli: ExerciseCli
) -> None:
    started(cli, env, isolated_home)
    refused = cli(env, "check", TOY, TOY_CHECKER_MODE="usage")
    assert refused.returncode == 2 and "needs a module that is not installed" in refused.stderr
    meta = labs / "toy" / "exercises" / TOY / "exercise.yaml"
    meta.write_text(
        meta.read_text(encoding="utf-8").replace("needs: []", "needs: [no_such_module_xyz]"), encoding="utf-8"
    )
    missing = cli(env, "check", TOY)
    assert missing.returncode == 2 and "no_such_module_xyz" in missing.stderr
    assert rows(isolated_home, "exercise_checks") == []  # a refused run is not a check


def _popen(env: dict[str, str], *args: str, **extra: str) -> subprocess.Popen[str]:
    full = {**os.environ, **env, **extra, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "studyapp", "exercise", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full,
        cwd=REPO,
    )


def _read_until(process: subprocess.Popen[str], needle: str, limit: float = 60) -> str:
    """stdout lines until one holds `needle` (the process keeps running)."""
    assert process.stdout is not None
    seen = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return "".join(seen)
    process.kill()
    raise AssertionError(f"never saw {needle!r} in:\n{''.join(seen)}")


def test_ctrl_c_during_a_check_is_130_and_stops_the_checker(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    started(cli, env, isolated_home)
    process = _popen(env, "check", TOY, TOY_CHECKER_MODE="hang")
    _read_until(process, "checking toy-sum")
    time.sleep(1.0)  # let the checker start
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert rows(isolated_home, "exercise_checks")[-1]["verdict"] == "interrupted"


# -- watch ------------------------------------------------------------------------------------------


def test_watch_rechecks_on_save_and_ctrl_c_exits_130(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    workspace = started(cli, env, isolated_home)
    process = _popen(env, "watch", TOY, "--quick")
    try:
        first = _read_until(process, "not yet:")
        assert "✗ adds small numbers" in first
        time.sleep(0.5)
        (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
        second = _read_until(process, "passed:")
        assert "changed: adder.py" in second and "✓ adds small numbers" in second
        (workspace / "notes.json").write_text("{}", encoding="utf-8")  # not the learner's code: ignored
        time.sleep(0.5)
        (workspace / "adder.py").write_text(SOLVED.replace("a + b", "b + a"), encoding="utf-8")
        third = _read_until(process, "passed:")
        assert "notes.json" not in third
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "Traceback" not in err
    verdicts = [r["verdict"] for r in rows(isolated_home, "exercise_checks")]
    assert verdicts[:3] == ["failed", "passed", "passed"]


def add_second_exercise(labs: Path) -> None:
    """toy-twice: the toy exercise again, after toy-sum on the study path (same checklist item)."""
    second = labs / "toy" / "exercises" / "toy-twice"
    shutil.copytree(labs / "toy" / "exercises" / TOY, second)
    meta = (second / "exercise.yaml").read_text(encoding="utf-8").replace(f"id: {TOY}", "id: toy-twice")
    (second / "exercise.yaml").write_text(meta.replace("order: 1", "order: 2"), encoding="utf-8")


def test_a_pass_names_the_next_exercise_and_watch_moves_on_to_it(
    env: dict[str, str], labs: Path, isolated_home: Path, cli: ExerciseCli
) -> None:
    """rustlings: after a pass the next exercise on the study path is named, and `watch` starts it
    (from its starter) and checks it."""
    add_second_exercise(labs)
    workspace = started(cli, env, isolated_home)
    (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
    passed = cli(env, "check", TOY, "--quick", "--lang", "en")
    assert passed.returncode == 0 and "next exercise: toy-twice" in passed.stdout, passed.stdout
    process = _popen(env, "watch", TOY, "--quick", "--lang", "en")
    try:
        seen = _read_until(process, "not yet:")  # toy-sum passes, toy-twice's starter does not
        assert "moving on to the next exercise: toy-twice" in seen, seen
        assert (isolated_home / "exercises" / "toy-twice" / "adder.py").is_file()
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    checked = [(r["exercise_id"], r["verdict"]) for r in rows(isolated_home, "exercise_checks")]
    assert checked[-2:] == [(TOY, "passed"), ("toy-twice", "failed")]


# -- hints and the solution -------------------------------------------------------------------------


def test_hints_one_at_a_time(env: dict[str, str], isolated_home: Path, cli: ExerciseCli) -> None:
    first = cli(env, "hint", TOY)
    assert first.returncode == 0 and "hint 1/2" in first.stdout and "`+` 연산자" in first.stdout
    assert "return a + b" not in first.stdout
    second = cli(env, "hint", TOY)
    assert "hint 2/2" in second.stdout and "return a + b" in second.stdout and "last hint" in second.stdout
    third = cli(env, "hint", TOY)
    assert "hint 2/2" in third.stdout
    (row,) = rows(isolated_home, "exercise_hints")
    assert row["exercise_id"] == TOY and row["revealed"] == 2
    assert "hints_revealed" in json.loads(cli(env, "list", "--json").stdout)[0]


def test_solution_opens_after_a_pass_or_with_force(
    env: dict[str, str], isolated_home: Path, cli: ExerciseCli
) -> None:
    locked = cli(env, "solution", TOY)
    assert locked.returncode == 1 and "--force" in locked.stderr and "return a + b" not in locked.stdout
    forced = cli(env, "solution", TOY, "--force")
    assert forced.returncode == 0 and "return a + b" in forced.stdout and "solution" in forced.stdout
    workspace = started(cli, env, isolated_home)
    (workspace / "adder.py").write_text(SOLVED, encoding="utf-8")
    assert cli(env, "check", TOY).returncode == 0
    opened = cli(env, "solution", TOY)
    assert opened.returncode == 0 and "── adder.py ──" in opened.stdout
    # the solution was seen before the pass: the pass counts half in readiness
    assert json.loads(cli(env, "list", "--json").stdout)[0]["solution_first"] is True


def test_progress_names_the_exercise_that_would_raise_an_item(
    env: dict[str, str], studyapp_cli: InProcessCli
) -> None:
    data = json.loads(studyapp_cli("progress", "--json", env=env).stdout)
    amdahl = next(e for e in data["checklist"] if e["id"] == "amdahl")
    assert amdahl["raise_with"] == [TOY] and amdahl["exercises"] == [TOY]
    assert data["exercises"][TOY]["status"] == "not started"
    text = studyapp_cli("progress", env={**env, "COLUMNS": "200"})
    assert f"exercises to pass: {TOY}" in text.stdout


# -- a real exercise, once they exist ---------------------------------------------------------------


def test_a_real_exercise_starter_fails_and_its_solution_passes(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    from studyapp.exercises.checker import missing_modules
    from studyapp.exercises.registry import discover

    found = discover(REPO / "labs")
    assert found, "labs/*/exercises/ holds no exercise"
    exercises = [e for e in found.values() if not missing_modules(e)]
    if not exercises:
        pytest.skip("every exercise needs a module that is not installed here")
    info = min(exercises, key=lambda e: e.quick_timeout_s)
    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    assert studyapp_cli("exercise", "start", info.id, env=env).returncode == 0
    starter = studyapp_cli("exercise", "check", info.id, "--quick", env=env)
    assert starter.returncode == 1, starter.stdout + starter.stderr
    assert "✗" in starter.stdout and "Traceback (most recent call last)" not in starter.stderr
    solution = tmp_path / "solution"
    shutil.copytree(info.solution_dir, solution)
    passed = studyapp_cli("exercise", "check", info.id, "--quick", "--path", str(solution), env=env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_exercise_modules_import_neither_textual_nor_torch() -> None:
    code = (
        "import sys, json\n"
        "import studyapp.cli.exercise, studyapp.exercises.checker, studyapp.exercises.registry\n"
        "import studyapp.exercises.workspace, studyapp.exercises.status, studyapp.progress.exercise_store\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    loaded = set(json.loads(out.stdout))
    assert not {"textual", "torch", "watchfiles"} & loaded


def test_the_checklist_links_every_exercise_to_its_lab_and_list_follows_it() -> None:
    """Each checklist item an exercise is evidence for names the exercise's lab in `labs:`, and the
    study path (what `exercise list` shows and what `watch` moves along) follows the checklist."""
    import yaml

    from studyapp.exercises.registry import scan
    from studyapp.exercises.study_path import study_path

    checklist = yaml.safe_load((REPO / "content" / "checklist.yaml").read_text(encoding="utf-8"))["items"]
    labs_of = {entry["id"]: entry.get("labs") or [] for entry in checklist}
    exercises = scan(REPO / "labs").exercises
    for info in exercises.values():
        for item in info.checklist:
            assert info.lab in labs_of[item], (
                f"{info.id} lives in labs/{info.lab}, but {item} links {labs_of[item]}"
            )
    position = {entry["id"]: index for index, entry in enumerate(checklist)}
    path = list(study_path(exercises).values())
    firsts = [min(position[item] for item in info.checklist) for info in path]
    assert firsts == sorted(firsts), [info.id for info in path]
    assert path[0].id == "measure-resources"
