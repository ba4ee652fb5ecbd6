"""One mutant's check, as cosmic-ray runs it for `verify --mutants`:
`python -m studyapp.exercises.mutant_check EXERCISE_DIR WORKSPACE [--quick]`.

The checker runs through `checker.run_check`, under the child guard, with the exercise's own time
limit, exactly as `studyapp exercise check` runs it. cosmic-ray's own timeout only SIGKILLs its
test command's process group, and the learner's code runs in a session of its own: a mutant that
never ends (`i ** i`, a loop that lost its step) outlived its checker and kept a core busy for
an hour. The guard stops everything the check started, whatever ends it.

Prints the verdict as a protocol `result` line (what `mutants._verdict_of` reads) and exits 0 when
the check passed, 3 when it was undecided, 1 otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from studyapp.exercises import checker
from studyapp.exercises.registry import Problem, read_exercise

EXIT_CODES = {checker.PASSED: 0, checker.UNDECIDED: 3}


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--quick"):
        print(
            "usage: python -m studyapp.exercises.mutant_check EXERCISE_DIR WORKSPACE [--quick]",
            file=sys.stderr,
        )
        return 2
    problems: list[Problem] = []
    info = read_exercise(Path(argv[0]) / "exercise.yaml", problems)
    if info is None:
        print(f"cannot read the exercise: {problems[0].message if problems else argv[0]}", file=sys.stderr)
        return 2
    outcome = checker.run_check(info, Path(argv[1]), quick=len(argv) == 3)
    print(json.dumps({"type": "result", "verdict": outcome.verdict, "message": outcome.message}))
    return EXIT_CODES.get(outcome.verdict, 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
