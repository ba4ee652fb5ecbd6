"""The wrong solutions are patches on the reference solutions (tests/exercises/wrong/ID/NAME.yaml):
each one applies exactly, plants a change, and says in one line which slip it plants. The patch
applier (studyapp.exercises.verify) fails loudly when an `old` text is missing or ambiguous, so a
patch can never drift silently from the solution it edits. No checker runs here: these tests are
fast; test_catalogue.py runs every slip and checks it is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.exercises.verify import SlipError, replace_once
from tests.exercises.exercise_runs import (
    WRONG,
    build_wrong_solution,
    load_wrong_solution,
    solution_folder,
    wrong_solutions,
)

ALL = [(p.parent.name, p.stem) for p in sorted(WRONG.glob("*/*.yaml"))]


def test_wrong_solutions_are_patches_only() -> None:
    """No copied solution folders are left: every wrong solution is a NAME.yaml patch."""
    assert ALL, "no wrong solutions found"
    leftovers = [p for p in WRONG.glob("*/*") if p.suffix != ".yaml"]
    assert leftovers == [], leftovers
    assert {exercise_id for exercise_id, _ in ALL} == {p.name for p in WRONG.iterdir() if p.is_dir()}


@pytest.mark.parametrize(("exercise_id", "name"), ALL, ids=[f"{e}/{n}" for e, n in ALL])
def test_each_patch_applies_and_changes_only_its_file(exercise_id: str, name: str, tmp_path: Path) -> None:
    wrong = load_wrong_solution(exercise_id, name)
    assert len(wrong.why) <= 140, wrong.why  # one line a reader takes in at a glance
    folder = build_wrong_solution(exercise_id, name, tmp_path)
    solution = solution_folder(exercise_id)

    def files(where: Path) -> list[str]:  # bytecode caches are nobody's solution
        return sorted(p.name for p in where.iterdir() if p.name != "__pycache__")

    assert files(folder) == files(solution)
    for path in solution.iterdir():
        if path.is_file():
            same = (folder / path.name).read_bytes() == path.read_bytes()
            assert same == (path.name != wrong.file), path.name  # the patched file, and it alone, differs
    compile((folder / wrong.file).read_text(encoding="utf-8"), wrong.file, "exec")  # still Python


def test_every_exercise_with_wrong_solutions_lists_them_by_name() -> None:
    assert wrong_solutions("pipeline") == [
        "busy-includes-waiting",
        "busy-not-per-thread",
        "done-compared-with-eq",
        "last-stage-by-index",
        "lock-around-work",
        "one-done-marker",
        "relieve-divides-by-items",
        "sleep-after-each-item",
        "stage-by-stage",
    ]


SOURCE = """def f(x):
    if x:
        return 1
    return 2


def g(x):
    if x:
        return 1
"""


def test_a_plain_old_text_is_replaced_within_its_line() -> None:
    assert replace_once(SOURCE, "return 2", "return 3").count("return 3") == 1


def test_a_block_is_matched_at_its_indentation_and_the_new_block_keeps_it() -> None:
    changed = replace_once(SOURCE, "if x:\n    return 1\nreturn 2\n", "while x:\n    x -= 1\nreturn 0\n")
    assert "def f(x):\n    while x:\n        x -= 1\n    return 0\n" in changed
    assert changed.endswith("def g(x):\n    if x:\n        return 1\n")  # the other function untouched


@pytest.mark.parametrize(
    ("old", "problem"),
    [
        ("return 9", "occurs 0 times"),
        ("return 1", "occurs 2 times"),
        ("if x:\n    return 1\n", "occur 2 times"),  # a block found twice is ambiguous too
        ("if x:\nreturn 1\n", "occur 0 times"),  # the indentation inside a block must match
    ],
)
def test_an_old_text_found_not_exactly_once_fails_loudly(old: str, problem: str) -> None:
    with pytest.raises(SlipError, match=problem):
        replace_once(SOURCE, old, "pass\n")


def test_a_block_replaced_by_part_of_a_line_is_refused() -> None:
    with pytest.raises(SlipError, match="whole lines"):
        replace_once(SOURCE, "return 2\n", "return 3")
