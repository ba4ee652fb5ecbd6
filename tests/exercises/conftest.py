"""The exercise tests share one `catalogue`: each variant (starter, solution, recorded slip) of each
exercise is checked once per session, whichever test asks first (tests/exercises/exercise_runs.py).

Under pytest-xdist, run with `--dist loadgroup` to keep that promise across workers: every test
that uses the catalogue is grouped by the lab it checks, so one worker runs all of a lab's
variants once; the others are spread one by one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.exercises.exercise_runs import Catalogue, exercises

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    return Catalogue(tmp_path_factory.mktemp("catalogue"))


def _lab_of(item: pytest.Item) -> str | None:
    """The lab whose checkers a test runs: from its exercise parameter, or its file's name."""
    callspec = getattr(item, "callspec", None)
    exercise_id = callspec.params.get("exercise_id") if callspec is not None else None
    if isinstance(exercise_id, str) and exercise_id in exercises():
        return exercises()[exercise_id].lab
    name = item.path.stem  # test_LAB_exercises.py
    if name.startswith("test_") and name.endswith("_exercises"):
        return name.removeprefix("test_").removesuffix("_exercises")
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return  # the mark means nothing without xdist (and is unknown to pytest)
    for item in items:
        if item.path.parent != HERE:
            continue  # this hook sees the whole session's items: only this folder's are grouped
        if "catalogue" not in getattr(item, "fixturenames", ()):
            # shares no run with another test: spread (a lab's long checks on one worker were
            # the leg's long pole: the concurrency ones took 160 s in a row)
            item.add_marker(pytest.mark.xdist_group(item.nodeid))
            continue
        lab = _lab_of(item)
        if lab is not None:
            item.add_marker(pytest.mark.xdist_group(f"exercises-{lab}"))
