"""Runs pytest inside the learner's child process (labs._exercise.run_learner calls run_pytest).

Loading probe_plugin first puts the reference sorting.py in place of the learner's copy, so the
learner's `from sorting import ...` gets the counted functions.
"""

from __future__ import annotations

import sys
from pathlib import Path


def run_pytest(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import probe_plugin  # loaded first: it swaps in the reference sorting.py and patches pedantic
    import pytest

    return int(pytest.main(argv, plugins=[probe_plugin]))
