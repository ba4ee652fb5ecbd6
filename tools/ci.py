"""CI on any platform: install what the tests need, lint, then run the suite's two legs. Called by
.github/workflows/ci.yml (ubuntu, windows, macos × Python 3.10 and 3.13) and by .ci/run (this
project's own 2-core Linux CI, which pins the local torch 2.13.0 CPU build).

    python tools/ci.py [--torch VERSION] [--no-install] [--dry-run]

Only the standard library and the running interpreter: no bash, no PATH lookups of scripts (a
Windows runner has neither `python3` nor `lint-imports` where bash would look).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PIP = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile"]
NO_TESTS_SELECTED = 5  # pytest's exit code when a leg selects no test


def usable_cores() -> int:
    """Cores this process may run on (a CI container's share, not the host's); Windows and macOS
    have no sched_getaffinity."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def install_steps(torch: str | None) -> list[list[str]]:
    # Installed without byte-compiling: pip would spend ~30 s compiling every module of torch and
    # TensorBoard, of which the tests import a fraction; they are compiled on first import instead.
    steps = [[*PIP, f"torch=={torch}"]] if torch else []  # first, so the extra finds it satisfied
    return [*steps, [*PIP, "-e", ".[test,tensorboard,labs]"]]


def check_steps() -> list[list[str]]:
    python = sys.executable
    return [
        [python, "-m", "ruff", "format", "--check", "."],
        [python, "-m", "ruff", "check", "."],
        # lint-imports, without relying on its script being on PATH
        [python, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
        [python, "-m", "studyapp", "check"],
    ]


def test_legs(cores: int) -> list[list[list[str]]]:
    """Everything but the speed checks in parallel (one xdist group per lab test file and per
    exercise lab's shared catalogue, every other test on its own: tests/conftest.py), then the speed
    checks, so the noise they judge is the machine's. Each leg is a list of commands run at once.
    Two workers more than the cores: the leg's children, servers and terminals leave the cores
    idle part of the time, and with one BLAS thread a process (tests/conftest.py) the workers do
    not spin against each other. 2 cores: 543 s with 2 workers and 423 s with 3 (2026-12-03); on
    2026-12-06 the leg had grown to 508 s with 3 (18 % idle) and took 370 s with 4 (10 % idle),
    the same clone and venv. Not two per core (`-n auto`, the developer loop's): the checkers
    here are CPU-bound, and the speed checks run in the second leg anyway.
    The second leg runs the CPU-bound speed checks and, beside them, the ones that time sleeping
    threads (`serial_sleeps`): 115 s where one after the other took 180 s (2026-12-07)."""
    pytest = [sys.executable, "-m", "pytest", "-q"]
    workers = str(cores + 2)
    return [
        [[*pytest, "-n", workers, "--dist", "loadgroup", "-m", "not serial"]],
        [[*pytest, "-m", "serial and not serial_sleeps"], [*pytest, "-m", "serial_sleeps"]],
    ]


def failed(code: int) -> bool:
    return code not in (0, NO_TESTS_SELECTED)  # a leg that selects no test has nothing to prove


def run_at_once(commands: list[list[str]], env: dict[str, str]) -> int:
    """The first command prints as it goes; the others' output goes to a file, printed after it, so
    the reports do not interleave (a file, not a pipe: a full pipe would stall a check mid-timing).
    The first failing exit code, or 0."""
    with contextlib.ExitStack() as stack:
        held = [stack.enter_context(tempfile.TemporaryFile()) for _ in commands[1:]]
        beside = [
            subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
            for command, out in zip(commands[1:], held, strict=True)
        ]
        try:
            codes = [subprocess.run(commands[0], env=env).returncode]
        except BaseException:  # Ctrl+C: the commands beside it stop too, none is left running
            for process in beside:
                process.kill()
                process.wait()
            raise
        for command, process, out in zip(commands[1:], beside, held, strict=True):
            codes.append(process.wait())
            print("+ (beside the above) " + subprocess.list2cmdline(command), flush=True)
            out.seek(0)
            shutil.copyfileobj(out, sys.stdout.buffer)
            sys.stdout.flush()
    return next((code for code in codes if failed(code)), 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", metavar="VERSION", help="install this torch first (e.g. 2.13.0)")
    parser.add_argument("--no-install", action="store_true", help="use what is installed already")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    args = parser.parse_args(argv)
    os.chdir(REPO)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the first imports compile and cache torch's modules
    steps = [] if args.no_install else install_steps(args.torch)
    for step in steps + check_steps():
        print("+ " + subprocess.list2cmdline(step), flush=True)
        if not args.dry_run and (code := subprocess.run(step, env=env).returncode):
            return code
    for leg in test_legs(usable_cores()):
        print("+ " + "   &   ".join(subprocess.list2cmdline(command) for command in leg), flush=True)
        if not args.dry_run and (code := run_at_once(leg, env)):
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
