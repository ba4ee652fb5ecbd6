"""Shared fixtures: every test gets its own data directory, so none touches a learner's files."""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent

# numpy's OpenBLAS (and torch's OpenMP) start a thread per core in every process and spin while
# they wait: with two xdist workers per core they spun against each other, and the content checks
# (similarity, cue models) ran 61 s instead of 26 s. One each, before anything loads them; the
# processes tests start inherit it (labs set their own thread counts where they measure).
for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

# tests/data holds third-party material (e.g. pytest-benchmark's own suite) that labs run on:
# input for the tests, not tests of studyapp.
collect_ignore = ["data"]

# How a test runs is decided by where it lives, so a new file is classified without anyone
# remembering a decorator. Each rule is (file glob under tests/, test name prefix or "").
# `slow`: starts real child processes (labs, exercise checkers, a runner's children, a terminal) or
# a wheel build, or walks a learner's whole path through several screens; the developer loop
# (`pytest -m "not slow" -n auto`) skips it and CI runs it.
SLOW_TESTS = (
    ("labs/*", ""),
    ("exercises/test_*_exercise*.py", ""),  # real checkers: three interpreters per run
    ("exercises/test_catalogue.py", ""),
    ("exercises/test_exercise_lib.py", ""),  # the checker library, run as studyapp runs a checker
    ("test_exercises_cli.py", ""),  # `studyapp exercise …` with the toy checker as a child
    ("test_exercises_checker.py", ""),  # tiny checkers, each a child process
    ("test_child.py", ""),  # run_child on real children, grandchildren and timeouts
    ("test_labrunner.py", ""),  # fake labs as child processes: hangs, crashes, Ctrl+C
    ("test_reliability_children.py", ""),  # labs and servers killed with studyapp
    ("test_reliability_env.py", ""),  # `python -m studyapp` on odd terminals and full devices
    ("tui/test_*walkthrough.py", ""),  # a learner's path across screens, step by step
    ("test_cli_walkthrough.py", ""),
    ("tui/test_e2e_tmux.py", ""),
    ("tui/test_exam_e2e_tmux.py", ""),
    ("test_packaging.py", ""),
    ("test_without_torch.py", "test_a_"),  # `lab` / `exercise check` processes without torch
    ("test_without_torch.py", "test_quiz_"),
    ("test_content_hostile.py", ""),  # about 60 `python -m studyapp` runs under a memory cap
    ("test_content_fuzz.py", "test_mutated_shipped_yaml_never_crashes_a_command"),  # CLI runs on mutants
    # whole-bank analyses, seconds of numpy each: the generator over every glossary term, the cue
    # models fitted on the whole bank
    ("test_glossary_relations.py", "test_the_generator_never_offers_a_related_term"),
    ("test_cues_learned.py", ""),
    ("test_similarity.py", "test_planted_"),  # the similarity index over the bank with a planted pair
    ("test_similarity.py", "test_check_on_shipped_content_passes"),
    # collects the whole suite three times, once per serial marker expression (13 s in the loop)
    ("test_ci_runner.py", "test_every_serial_test_runs_in_exactly_one_part"),
    ("test_reliability_files.py", "test_a_lab_does_not_write_into_a_fifo"),  # a real lab run
    ("test_prediction_heavy.py", "test_progress_works_after_thousands_of_answers_to_one_item"),
    ("test_reliability_store.py", "test_a_held_lock_is_waited_for_with_a_notice"),  # holds a lock 11 s
    ("test_reliability_store.py", "test_a_lock_held_past_the_limit_keeps_the_answer"),
    # the Low cases that run a real check or `python -m studyapp` (seconds each; the rest stay)
    ("test_reliability_lows.py", "test_watch_does_not_recheck_what_the_check_itself_wrote"),
    ("test_reliability_lows.py", "test_a_checker_that_prints_without_end_is_bounded_and_blamed"),
    ("test_reliability_lows.py", "test_broken_exercise_metadata_cannot_hang_or_exhaust"),
    ("test_reliability_lows.py", "test_sigterm_to_a_check_is_recorded_and_leaves_nothing"),
    ("test_reliability_lows.py", "test_start_into_a_symlink_loop_or_the_root_is_one_line"),
    ("test_reliability_lows.py", "test_check_from_a_deleted_folder"),
    ("test_reliability_children.py", "test_a_check_stops_what_the_learner_left_outside_its_group"),
)
# `serial`: measures speed; CI runs these alone after the parallel leg, so the noise a verdict
# sees is the machine's and not the rest of the suite's.
SERIAL_TESTS = (
    # the concurrency checks whose verdicts are judged; the right approaches and the start methods
    # may be undecided under load (their tests accept a truthful undecided), so they run in parallel
    *(
        ("exercises/test_concurrency_exercises.py", name)
        for name in (
            "test_starter_",
            "test_solution_",
            "test_threads_",
            "test_cpu_",
            "test_a_pool_",
            "test_results_",
            "test_the_cpu_need_",
            "test_on_one_usable_core_",
        )
    ),
    # its busy-machine test too: a planted wait must make it undecided, but under the parallel
    # leg the run queue explains that wait away (/proc/self/schedstat) and the right answer passed
    ("exercises/test_amdahl_exercises.py", "test_measure_resources_"),
    # the catalogue's runs of the speed-measuring exercises (`[` is fnmatch's own bracket)
    ("exercises/test_catalogue.py", "test_variant[[]concurrency:"),
    ("exercises/test_catalogue.py", "test_variant[[]measure-resources:"),
    ("exercises/test_exercise_lib.py", "test_compare_speed_"),
    ("labs/test_amdahl_lab.py", "test_measure_mode_on_real_processes"),
    ("labs/test_amdahl_lab.py", "test_simulate_mode_follows_the_law"),  # sleeping workers, within 5 %
    # workers hiding the Dataset's time: a share of measured step times (reruns the module's quick run)
    ("labs/test_profiler_lab.py", "test_data_loading_share_falls_with_workers"),
    ("labs/test_benchmark_lab.py", "test_compare_"),  # regression verdicts on a planted 3x slowdown
    ("labs/test_concurrency_lab.py", ""),
    ("labs/test_profiler_scaling.py", ""),  # trace analysis time over two sizes: a ratio
    ("test_exam.py", "test_plain_exam_submits_itself_when_the_time_is_up"),  # a 1 s limit, real clock
)

# `serial_sleeps`: speed checks of threads that mostly sleep (the pipeline's stages): they need a
# scheduler that wakes them on time, not free cores, so CI runs them beside the CPU-bound serial
# tests, not after them (they used 22 s of CPU in 72 s; the two sets together took 115 s against
# 180 s one after the other, every verdict decided). They are `serial` too.
SERIAL_SLEEPING_TESTS = (
    ("exercises/test_pipeline_exercises.py", ""),
    ("exercises/test_catalogue.py", "test_variant[[]pipeline:"),
    ("labs/test_pipeline_lab.py", ""),
)


def _matches(item: pytest.Item, rules: tuple[tuple[str, str], ...]) -> bool:
    where = item.path.relative_to(Path(__file__).parent).as_posix()
    return any(fnmatch(where, glob) and fnmatch(item.name, name + "*") for glob, name in rules)


# Under `--dist loadgroup` (CI) the tests of these files are one group each, so that a module-scoped
# lab run happens on one worker, once (spread, a worker that ran one test of the module ran the
# whole lab again: the profiler lab's two runs six times). Every other test is spread on its own.
GROUPED_FILES = ("labs/*",)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (the developer loop): two workers per usable core. Its Pilot tests wait on
    Textual's timers more than they compute: with one worker per core both cores were busy 63 % of
    the TUI tests' time, with two 85 % (the loop: 178 → 124 s on the same tests). CI's parallel leg
    (labs, checkers: CPU-bound) passes one per core itself (.ci/run)."""
    return 2 * len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2 * (os.cpu_count() or 1)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _matches(item, SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
        if _matches(item, SERIAL_TESTS):
            item.add_marker(pytest.mark.serial)
        if _matches(item, SERIAL_SLEEPING_TESTS):
            item.add_marker(pytest.mark.serial)
            item.add_marker(pytest.mark.serial_sleeps)
    if not config.pluginmanager.hasplugin("xdist"):
        return  # the group mark means nothing without xdist (and is unknown to pytest)
    for item in items:
        if any(item.iter_markers("xdist_group")):
            continue  # grouped already (tests/exercises/conftest.py: by lab)
        where = item.path.relative_to(Path(__file__).parent).as_posix()
        # no mark for the rest: `--dist loadgroup` spreads an unmarked test on its own, and a group
        # renames the node id ("…@group"), which the snapshot tests name their files by
        if any(fnmatch(where, glob) for glob in GROUPED_FILES):
            item.add_marker(pytest.mark.xdist_group(where))


@pytest.fixture(scope="session", autouse=True)
def children_never_see_xdist() -> Iterator[None]:
    """pytest-xdist names each worker in its environment (PYTEST_XDIST_WORKER, ...), and every
    process a test starts inherits that: the pytest a lab or an exercise checker runs would take
    itself for an xdist worker, and pytest-benchmark switches itself off there. Hidden for the
    tests; put back before the session ends, where pytest-textual-snapshot reads it."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("PYTEST_XDIST_")]:
            patch.delenv(name)
        yield


def pytest_configure(config: pytest.Config) -> None:
    """A suite started in the background of a shell without job control (`bash .ci/run &`) starts
    with SIGINT ignored, and every child inherits that: the tests that press Ctrl+C on a
    `studyapp` process then wait for ever. Python's own handler is put in its place; exec resets
    it, so children (xdist workers too) start with the default."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # Bytecode is cached, as tools/ci.py does: with PYTHONDONTWRITEBYTECODE=1 (this machine sets
    # it) every `python -m studyapp` a test starts, and every xdist worker, compiles the package
    # afresh (the developer loop: 90-105 s against 76 s). __pycache__ is git-ignored; the checker
    # still keeps it out of the learner's folder (it sets the variable for its own children).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Every test leaves the worker's Ctrl+C handling as it found it: an ignored or blocked SIGINT
    is inherited by every process a later test starts, whose Ctrl+C test then waits for ever. A
    test (or a library it calls in-process) that changes it fails here, and the worker is put back."""
    import signal

    def state() -> tuple[object, frozenset[int]]:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, "pthread_sigmask") else ()
        return signal.getsignal(signal.SIGINT), frozenset(int(number) for number in mask)

    before = state()
    outcome = yield
    after = state()
    if after != before:
        signal.signal(signal.SIGINT, before[0])  # type: ignore[arg-type]
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_SETMASK, before[1])
        if outcome.excinfo is None:
            pytest.fail(f"the test changed the worker's SIGINT handling: {before} → {after}", pytrace=False)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "studyapp-home"
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    monkeypatch.setenv("STUDYAPP_CACHE", str(home / "cache"))  # the content cache, per test
    monkeypatch.delenv("STUDYAPP_CONTENT", raising=False)
    monkeypatch.delenv("STUDYAPP_LABS", raising=False)
    monkeypatch.delenv("STUDYAPP_NOW", raising=False)  # each test sets its own "now"
    monkeypatch.setenv("STUDYAPP_LANG", "en")
    return home


class FakeClock:
    """A clock tests move by hand (UTC)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _child_pythonpath(env: dict[str, str] | None) -> str:
    return os.pathsep.join(p for p in ((env or {}).get("PYTHONPATH"), str(REPO)) if p)


def run_cli(
    *args: str, env: dict[str, str] | None = None, input_text: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m studyapp ARGS` in a subprocess, as a learner would.

    Most tests use the `studyapp_cli` fixture instead (the same call, in-process). A subprocess is
    for what only a real process shows: start-up, fault injection through PYTHONPATH
    (tests/store_faults), signals, encodings of the standard streams, pipes, kill -9.
    """
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = _child_pythonpath(env)
    return subprocess.run(
        [sys.executable, "-m", "studyapp", *args],
        capture_output=True,
        text=True,
        input=input_text,
        env=full_env,
        cwd=cwd or REPO,
        timeout=120,
    )


class InProcessCli:
    """`studyapp ARGS` through `studyapp.cli.main(argv)` in this process (httpie's `http()` idea):
    the same arguments and the same result shape as `run_cli`, without an interpreter start.

    What a subprocess would get fresh is set for the call and put back after it: environment
    variables (`env` on top of the test's), the working directory (the repository, as `run_cli`),
    stdin (`input_text`, never a terminal), stdout and stderr (captured by capsys). The SQLite
    connections the command left open are closed after it, as its process's exit would close them.
    Caches are keyed by their content or data directory. Left shared on purpose: the string tables
    modules register when imported (studyapp.i18n), which are only ever added to; restoring them
    would lose what an already imported module never registers again. So a command that forgets
    to import its strings shows keys only in a real process: the `run_cli` smoke tests and the
    process-driven tests (PlainDriver, the timed exam, Ctrl+C) keep a few paths honest.
    """

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys

    def __call__(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        input_text: str | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        from studyapp.cli import main

        self._capsys.readouterr()  # what the test printed before is not the command's output
        with pytest.MonkeyPatch.context() as patch:
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            patch.setenv("PYTHONPATH", _child_pythonpath(env))  # what children of the command see
            patch.chdir(cwd or REPO)
            patch.setattr(sys, "stdin", io.StringIO(input_text or ""))
            opened: list[sqlite3.Connection] = []
            connect = sqlite3.connect

            def recorded_connect(*where: Any, **options: Any) -> sqlite3.Connection:
                opened.append(connect(*where, **options))
                return opened[-1]

            patch.setattr(sqlite3, "connect", recorded_connect)
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's --help and --version
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                # An open one would keep its WAL, and the next call would write into pages it
                # already holds (a full-disk test then saw a write succeed).
                for connection in opened:
                    with contextlib.suppress(sqlite3.Error):
                        connection.close()
        out, err = self._capsys.readouterr()
        return subprocess.CompletedProcess(["studyapp", *args], code, out, err)


@pytest.fixture
def studyapp_cli(capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    """`studyapp_cli("quiz", "--plain", input_text="o\\n")` → CompletedProcess, like `run_cli`."""
    return InProcessCli(capsys)
