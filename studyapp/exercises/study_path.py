"""The study path: exercises in the order of the 시험 대비 체크리스트, and the next one to do.

The CLI (`exercise list`, the line after a pass, `watch` moving on) and the TUI's Exercises screen
share it, so both walk the same path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studyapp import locations
from studyapp.exercises.status import PASSED as STATUS_PASSED


def _checklist_order() -> dict[str, tuple[int, list[str]]]:
    """checklist id -> (its position in content/checklist.yaml, its `labs:`); empty if unreadable."""
    import yaml  # PyYAML (~20 ms) only when the path is asked for: the quiz never needs it

    try:
        data = yaml.safe_load((locations.content_dir() / "checklist.yaml").read_text(encoding="utf-8"))
        entries = data.get("items", []) if isinstance(data, dict) else []
        return {
            str(entry["id"]): (position, [str(lab) for lab in entry.get("labs") or []])
            for position, entry in enumerate(entries)
            if isinstance(entry, dict) and "id" in entry
        }
    except (OSError, yaml.YAMLError, TypeError, KeyError):
        return {}


def study_path(exercises: dict[str, Any]) -> dict[str, Any]:
    """The exercises in the checklist's order (the study path): by the earliest checklist item each
    is evidence for, then by where its lab stands in that item's `labs:`, then (lab, order, id)."""
    checklist = _checklist_order()

    def key(info: Any) -> tuple[int, int, str, int, str]:
        places = [
            (checklist[item][0], checklist[item][1].index(info.lab) if info.lab in checklist[item][1] else 99)
            for item in info.checklist
            if item in checklist
        ]
        position, lab_rank = min(places) if places else (len(checklist), 99)
        return position, lab_rank, info.lab, info.order, info.id

    return {info.id: info for info in sorted(exercises.values(), key=key)}


def next_exercise(exercises: dict[str, Any], current: str, statuses: Mapping[str, Any]) -> Any | None:
    """The first exercise after `current` on the study path that is not passed yet (wrapping round);
    `statuses` as `all_statuses` gives them (a screen passes the ones it already shows)."""
    order = list(exercises)
    if current not in order:
        return None
    start = order.index(current)
    for exercise_id in order[start + 1 :] + order[:start]:
        if statuses[exercise_id].status != STATUS_PASSED:
            return exercises[exercise_id]
    return None
