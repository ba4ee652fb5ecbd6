"""Which labs exist: every `labs/NAME/lab.yaml`, read as plain data (never imported)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from studyapp import locations
from studyapp.errors import StudyappError


@dataclass(frozen=True)
class CheckQuestion:
    """An O/X question asked after a lab run; its answer is evidence for checklist readiness."""

    statement: str
    answer: str
    explanation: str


@dataclass(frozen=True)
class LabInfo:
    id: str
    title: str
    title_en: str
    topics: tuple[str, ...]
    checklist: tuple[str, ...]
    needs: tuple[str, ...]
    timeout_s: float
    quick_timeout_s: float
    summary: str
    check_question: CheckQuestion | None
    path: Path


def _read(path: Path) -> LabInfo:
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise StudyappError(f"{path}: cannot read lab metadata: {exc}") from None
    if not isinstance(data, dict):
        raise StudyappError(f"{path}: lab metadata must be a mapping")
    question = data.get("check_question")
    check = None
    if isinstance(question, dict) and question.get("answer") in ("O", "X") and question.get("statement"):
        check = CheckQuestion(
            str(question["statement"]), question["answer"], str(question.get("explanation", ""))
        )
    return LabInfo(
        id=path.parent.name,
        title=str(data.get("title", path.parent.name)),
        title_en=str(data.get("title_en", data.get("title", path.parent.name))),
        topics=tuple(data.get("topics") or ()),
        checklist=tuple(data.get("checklist") or ()),
        needs=tuple(data.get("needs") or ()),
        timeout_s=float(data.get("timeout_s", 600)),
        quick_timeout_s=float(data.get("quick_timeout_s", 120)),
        summary=str(data.get("summary", "")),
        check_question=check,
        path=path.parent,
    )


def discover(labs_dir: Path | None = None) -> dict[str, LabInfo]:
    """All labs, sorted by id."""
    root = labs_dir or locations.labs_dir()
    found = {}
    for meta in sorted(root.glob("*/lab.yaml")):
        info = _read(meta)
        found[info.id] = info
    return found


def get(name: str, labs_dir: Path | None = None) -> LabInfo:
    labs = discover(labs_dir)
    if name not in labs:
        known = ", ".join(labs) or "none"
        raise StudyappError(f"unknown lab '{name}'. Labs: {known}")
    return labs[name]


def labs_with_questions(labs_dir: Path | None = None) -> set[str]:
    return {lab_id for lab_id, info in discover(labs_dir).items() if info.check_question}
