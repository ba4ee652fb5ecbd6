"""`studyapp exercise verify --mutants`: cosmic-ray mutates the toy exercise's reference solution
(tests/exercise_fixture) and the toy checker decides each mutant. The real exercises' mutation runs
take minutes each and stay out of CI (docs/EXERCISES.md records their scores)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from studyapp.exercises import mutants
from tests.conftest import REPO, InProcessCli

FIXTURE_LABS = REPO / "tests" / "exercise_fixture" / "labs"
TOY = "toy-sum"

pytestmark = pytest.mark.skipif(mutants.cosmic_ray_missing(), reason="cosmic-ray is in the test extra")


@pytest.fixture
def toy_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    labs = tmp_path / "checkout" / "labs"
    shutil.copytree(FIXTURE_LABS, labs)
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    return labs


def toy_folder(labs: Path) -> Path:
    return labs / "toy" / "exercises" / TOY


def plant_dead_constant(labs: Path) -> None:
    """A constant the checker never sees: a number mutant of it survives whatever the checker does."""
    adder = toy_folder(labs) / "solution" / "adder.py"
    adder.write_text(adder.read_text(encoding="utf-8") + "\n\nUNUSED_LIMIT = 10\n", encoding="utf-8")


@pytest.mark.slow
def test_a_checker_that_kills_every_mutant_scores_100(toy_labs: Path, studyapp_cli: InProcessCli) -> None:
    done = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith(f"{TOY}: ") and " 0 survived, 0 equivalent" in summary
    assert "score 100.0%" in summary
    killed = int(summary.split(" mutants: ")[1].split(" killed")[0])
    assert killed >= 5  # a + b: -, *, /, //, %, ** ... each changes add(2, 3)


@pytest.mark.slow
def test_a_survivor_fails_until_recorded_as_equivalent(toy_labs: Path, studyapp_cli: InProcessCli) -> None:
    plant_dead_constant(toy_labs)
    done = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert done.returncode == 1, done.stdout + done.stderr
    survivors = [line for line in done.stdout.splitlines() if line.startswith("✗ survived adder.py:")]
    assert survivors, done.stdout
    assert all("UNUSED_LIMIT = 10 →" in line for line in survivors), survivors
    assert " 0 equivalent" in done.stdout and "score 100.0%" not in done.stdout

    # Record each survivor by the key the command printed: the next run counts them as equivalent.
    keys = [line.split("[", 1)[1].split("]", 1)[0] for line in survivors]
    equivalents = toy_folder(toy_labs) / mutants.EQUIVALENTS_FILE
    equivalents.write_text(
        "".join(f'"{key}": "UNUSED_LIMIT is never read: no behaviour changes"\n' for key in keys),
        encoding="utf-8",
    )
    again = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f" 0 survived, {len(keys)} equivalent" in again.stdout and "score 100.0%" in again.stdout
    assert any(line.startswith("= equivalent adder.py:") for line in again.stdout.splitlines())

    # A key is the change, not its line number: moving the code keeps every record valid.
    adder = toy_folder(toy_labs) / "solution" / "adder.py"
    adder.write_text("# a comment that moves every line down\n" + adder.read_text(encoding="utf-8"))
    moved = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert moved.returncode == 0 and "which no mutant has now" not in moved.stdout, moved.stdout


@pytest.mark.slow
def test_a_record_no_mutant_matches_is_named_stale(toy_labs: Path, studyapp_cli: InProcessCli) -> None:
    equivalents = toy_folder(toy_labs) / mutants.EQUIVALENTS_FILE
    equivalents.write_text('"adder.py NumberReplacer 00000000": "an old line"\n', encoding="utf-8")
    done = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert done.returncode == 0
    assert "lists 'adder.py NumberReplacer 00000000', which no mutant has now: remove it" in done.stdout


@pytest.mark.slow
def test_a_reference_its_checker_fails_is_refused_before_mutating(
    toy_labs: Path, studyapp_cli: InProcessCli
) -> None:
    adder = toy_folder(toy_labs) / "solution" / "adder.py"
    adder.write_text(adder.read_text(encoding="utf-8").replace("a + b", "a - b"), encoding="utf-8")
    done = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert done.returncode == 2
    assert "the reference solution does not pass its own checker" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    "text",
    ["- just a list\n", '"key": ""\n', '"key": {reason: nested}\n', "key: [unclosed\n"],
)
def test_a_malformed_equivalents_file_is_one_line_and_exit_2(
    toy_labs: Path, studyapp_cli: InProcessCli, text: str
) -> None:
    (toy_folder(toy_labs) / mutants.EQUIVALENTS_FILE).write_text(text, encoding="utf-8")
    done = studyapp_cli("exercise", "verify", "--mutants", TOY)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert mutants.EQUIVALENTS_FILE in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_unknown_exercise_is_a_usage_error(toy_labs: Path, studyapp_cli: InProcessCli) -> None:
    done = studyapp_cli("exercise", "verify", "--mutants", "no-such-exercise")
    assert done.returncode == 2 and "unknown exercise 'no-such-exercise'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_key_ignores_line_numbers_and_names_file_and_operator() -> None:
    diff = (
        "--- mutation diff ---\n--- a/x.py\n+++ b/x.py\n@@ -7,3 +7,3 @@\n def f():\n"
        "-    return a + b\n+    return a - b\n \n"
    )
    removed, added, line = mutants._changed_lines(diff)
    assert (removed, added, line) == (("return a + b",), ("return a - b",), 8)
    key = mutants.mutant_key("x.py", "core/ReplaceBinaryOperator_Add_Sub", removed, added)
    assert key.startswith("x.py ReplaceBinaryOperator_Add_Sub ") and len(key.split()[-1]) == 8
    assert key != mutants.mutant_key("x.py", "core/ReplaceBinaryOperator_Add_Sub", removed, ("return b - a",))


@pytest.mark.slow  # ~11 s: a whole mutant check in its own process (CI runs it; the developer loop does not)
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the process through /proc")
def test_a_mutant_check_leaves_nothing_running(toy_labs: Path, tmp_path: Path) -> None:
    """cosmic-ray's timeout SIGKILLs only its test command's group; a learner run in a session of
    its own outlived it (an `i ** i` mutant kept a core busy for an hour). Each mutant is checked
    under the child guard (mutant_check), which stops whatever the check started."""
    import subprocess
    import sys
    import uuid

    marker = f"studyapp-test-orphan-{uuid.uuid4().hex}"
    workspace = tmp_path / "mutant"
    shutil.copytree(toy_folder(toy_labs) / "solution", workspace)
    (workspace / "adder.py").write_text(
        "import subprocess, sys\n\n\n"
        "def add(a: int, b: int) -> int:\n"
        f"    code = 'import time; time.sleep(120)  # {marker}'\n"
        "    subprocess.Popen([sys.executable, '-c', code], start_new_session=True)\n"
        "    return a + b\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "studyapp.exercises.mutant_check", str(toy_folder(toy_labs)), str(workspace)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert '"type": "result"' in done.stdout.splitlines()[-1], done.stdout + done.stderr
    alive = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker in cmdline.read_text(errors="replace"):
                alive.append(cmdline.parent.name)
        except OSError:
            continue
    assert not alive, f"left running: {alive}"


def test_mutant_check_says_how_to_call_it() -> None:
    from studyapp.exercises import mutant_check

    assert mutant_check.main([]) == 2
    assert mutant_check.main(["a", "b", "--slow"]) == 2
