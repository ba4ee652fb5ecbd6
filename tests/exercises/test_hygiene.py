"""Hygiene after every learner run (labs/_exercise/learner.py, issue 31): code that returns the
right answer but leaves threads, executors, pools or child processes running, or blocks its event
loop, fails the requirement HYGIENE with what was seen; code that cleans up passes it. Each case is
a slip a learner makes, run through a real checker as studyapp runs it. (A pool or executor only
a local name holds is shut down by the garbage collector when the call returns: not a leftover.)"""

from __future__ import annotations

import json

import pytest

from labs._exercise import run_learner
from labs._exercise.checker import HYGIENE
from tests.exercises.test_exercise_lib import learner, run_checker

CHECK_BODY = """
with Checker(args) as check:
    result = run_learner(args.workspace, "solution.py", "answer", timeout_s=30)
    if check.require_ran("answer() runs", result):
        check.require("answer() is 42", result.value == 42, "42", f"{result.value!r}")
"""

SLIPS = {
    "an executor never shut down": (
        """
        from concurrent.futures import ThreadPoolExecutor
        POOL = ThreadPoolExecutor(2)  # at module level, for every call: never shut down
        def answer():
            return sum(POOL.map(lambda x: x, [40, 2]))
        """,
        "an executor not shut down",
    ),
    "a thread left running": (
        """
        import threading, time
        def answer():
            threading.Thread(target=time.sleep, args=(20,), daemon=True).start()
            return 42
        """,
        "thread(s) still running",
    ),
    "a multiprocessing pool never closed": (
        """
        import multiprocessing
        def double(x):
            return 2 * x
        POOL = None  # kept for "the next call": never closed
        def answer():
            global POOL
            POOL = multiprocessing.get_context("fork").Pool(2)
            return sum(POOL.map(double, [20, 1]))
        """,
        "a multiprocessing Pool not closed",
    ),
    "a child process left running": (
        """
        import subprocess, sys
        def answer():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(20)"])
            return 42
        """,
        "child process(es) still running",
    ),
    "a blocking sleep inside a coroutine": (
        """
        import asyncio, time
        async def slow():
            time.sleep(0.8)
            return 42
        def answer():
            return asyncio.run(slow())
        """,
        "the event loop was blocked",
    ),
}

CLEAN = {
    "an executor in a with-block": """
        from concurrent.futures import ThreadPoolExecutor
        def answer():
            with ThreadPoolExecutor(2) as pool:
                return sum(pool.map(lambda x: x, [40, 2]))
        """,
    "a pool closed and joined": """
        import multiprocessing
        def double(x):
            return 2 * x
        def answer():
            with multiprocessing.get_context("fork").Pool(2) as pool:
                return sum(pool.map(double, [20, 1]))
        """,
    "a process pool with spawn": """
        from concurrent.futures import ProcessPoolExecutor
        import multiprocessing
        def answer():
            with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
                return sum(pool.map(abs, [40, -2]))
        """,
    "an awaited sleep": """
        import asyncio
        async def slow():
            await asyncio.sleep(0.8)
            return 42
        def answer():
            return asyncio.run(slow())
        """,
}


def requirements(done) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {r["name"]: r for r in result["requirements"]}


@pytest.mark.slow
@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_a_slip_that_leaves_something_running_fails_hygiene_naming_it(tmp_path, slip: str) -> None:  # type: ignore[no-untyped-def]
    source, seen = SLIPS[slip]
    learner(tmp_path, source)
    done = run_checker(tmp_path, CHECK_BODY)
    found = requirements(done)
    assert done.returncode == 1, done.stdout + done.stderr
    assert found["answer() is 42"]["passed"] is True  # the answer is right: only hygiene fails
    assert found[HYGIENE]["passed"] is False and seen in str(found[HYGIENE]["message"]), found[HYGIENE]


@pytest.mark.slow
@pytest.mark.parametrize("approach", sorted(CLEAN))
def test_code_that_cleans_up_passes(tmp_path, approach: str) -> None:  # type: ignore[no-untyped-def]
    learner(tmp_path, CLEAN[approach])
    done = run_checker(tmp_path, CHECK_BODY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert HYGIENE not in requirements(done)


def test_the_loop_bound_can_be_turned_off_for_a_check_that_measures_blocking(tmp_path) -> None:  # type: ignore[no-untyped-def]
    workspace = learner(tmp_path, SLIPS["a blocking sleep inside a coroutine"][0])
    watched = run_learner(workspace, "solution.py", "answer", timeout_s=30)
    unwatched = run_learner(workspace, "solution.py", "answer", timeout_s=30, loop_block_s=None)
    assert watched.ok and unwatched.ok and watched.value == unwatched.value == 42
    assert any("slow()" in problem for problem in watched.hygiene), watched.hygiene
    assert unwatched.hygiene == []
