"""The exercise catalogue, like rustlings' `dev check`: for every exercise found on disk, the
untouched starter fails usefully, the reference solution passes, and every recorded slip
(tests/exercises/wrong/ID/NAME.yaml) is caught — judged by studyapp.exercises.verify, the rules
`studyapp exercise verify` applies. A new exercise is covered by adding its folder and at least one
slip; no new test is written for it.

Each variant is checked once per session (the `catalogue` fixture); the lab test files read the
same runs for their message-wording checks. `undecided` (a speed check that could not tell on a
busy machine) and a missing dependency are reported as skips with the reason, never as passes.
"""

from __future__ import annotations

import pytest

from studyapp.exercises import verify
from tests.exercises.exercise_runs import LABS, WRONG, Catalogue, exercises

VARIANTS = [
    (variant.exercise_id, variant.name)
    for info in exercises().values()
    for variant in verify.variants(info, WRONG)
]


def test_every_exercise_folder_on_disk_is_in_the_catalogue() -> None:
    on_disk = {meta.parent.name for meta in LABS.glob("*/exercises/*/exercise.yaml")}
    assert on_disk and set(exercises()) == on_disk  # none skipped for a broken exercise.yaml
    assert {exercise_id for exercise_id, _ in VARIANTS} == on_disk


def test_every_exercise_has_a_recorded_slip_and_every_slip_folder_an_exercise() -> None:
    assert verify.catalogue_problems(exercises(), WRONG) == []


def test_each_exercise_has_a_starter_a_solution_and_its_slips() -> None:
    names = {exercise_id: [] for exercise_id in exercises()}
    for exercise_id, name in VARIANTS:
        names[exercise_id].append(name)
    for exercise_id, found in names.items():
        slips = [path.stem for path in sorted((WRONG / exercise_id).glob("*.yaml"))]
        assert found == ["starter", "solution", *(f"wrong/{slip}" for slip in slips)], exercise_id


@pytest.mark.parametrize(("exercise_id", "variant"), VARIANTS, ids=[f"{e}:{v}" for e, v in VARIANTS])
def test_variant(exercise_id: str, variant: str, catalogue: Catalogue) -> None:
    """starter: fails, with a message; solution: passes; wrong/NAME: fails (what `fails` names)."""
    result = catalogue.result(exercise_id, variant)
    if result.status in (verify.UNDECIDED, verify.CANNOT_RUN):
        pytest.skip(result.line())  # honest: nothing was decided here, and the reason is shown
    assert result.status == verify.OK, result.line()
