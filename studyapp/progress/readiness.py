"""Checklist readiness: how ready the learner is for each of the 11 exam checklist items.

Evidence per checklist item, each scored 0–1:
- quiz: for every linked question, its FSRS recall probability now if its last answer was right
  (0 if wrong or never seen) — "the share of these items you would get right today";
- labs: each linked lab counts when it has run successfully; when the lab asks a check
  question, half of its credit is the learner's latest answer to it;
- self-check: "I can explain this", stored with a date; it stops counting when a linked item is
  answered wrong after that date (it decays with the evidence).
Readiness = 0.6 quiz + 0.25 labs + 0.15 self-check. The weights favour what is measured over
what is claimed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from studyapp.content.model import ChecklistEntry, Content
from studyapp.progress.store import LabRun, ProgressStore, Review
from studyapp.quiz.questions import Question, all_questions
from studyapp.quiz.scheduler import ItemSchedule

WEIGHTS = {"quiz": 0.6, "labs": 0.25, "self_check": 0.15}
READY_AT = 0.8  # a component at or above this needs no next step


@dataclass(frozen=True)
class Readiness:
    entry: ChecklistEntry
    readiness: float
    quiz: float
    labs: float
    self_check: float
    evidence: dict[str, Any]
    next_step: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.entry.id,
            "number": self.entry.number,
            "text": self.entry.text,
            "readiness": round(self.readiness, 4),
            "components": {
                "quiz": round(self.quiz, 4),
                "labs": round(self.labs, 4),
                "self_check": self.self_check,
            },
            "evidence": self.evidence,
            "next_step": self.next_step,
        }


def linked_questions(entry: ChecklistEntry, questions: dict[str, Question]) -> list[Question]:
    return [q for q in questions.values() if entry.id in q.checklist or q.id in entry.items]


def _quiz_score(
    linked: list[Question], schedules: dict[str, ItemSchedule], now: datetime
) -> tuple[float, dict[str, Any]]:
    if not linked:
        return 0.0, {"items": 0}
    recall = [
        schedules[q.id].retrievability(now) if q.id in schedules and schedules[q.id].last_correct else 0.0
        for q in linked
    ]
    seen = [q for q in linked if q.id in schedules]
    return sum(recall) / len(linked), {
        "items": len(linked),
        "seen": len(seen),
        "last_right": sum(1 for q in seen if schedules[q.id].last_correct),
        "expected_right_now": round(sum(recall), 2),
    }


def _lab_score(
    labs: tuple[str, ...], runs: list[LabRun], answers: dict[str, tuple[bool, datetime]], questioned: set[str]
) -> tuple[float, dict[str, Any]]:
    if not labs:
        return 1.0, {}
    evidence: dict[str, Any] = {}
    total = 0.0
    for lab in labs:
        ok_runs = [r for r in runs if r.lab == lab and r.status == "ok"]
        ran = 1.0 if ok_runs else 0.0
        answer = answers.get(lab)
        score = 0.5 * ran + (0.5 if answer and answer[0] else 0.0) if lab in questioned else ran
        total += score
        evidence[lab] = {
            "ok_runs": len(ok_runs),
            "last_ok": ok_runs[-1].started_at.isoformat() if ok_runs else None,
            "check_question": None if lab not in questioned else (answer[0] if answer else "unanswered"),
        }
    return total / len(labs), evidence


def _self_check(
    entry: ChecklistEntry, checked: dict[str, datetime], linked: list[Question], reviews: list[Review]
) -> tuple[float, dict[str, Any]]:
    when = checked.get(entry.id)
    if when is None:
        return 0.0, {"checked_at": None}
    ids = {q.id for q in linked}
    failed_since = [r.item_id for r in reviews if r.item_id in ids and not r.correct and r.reviewed_at > when]
    valid = not failed_since
    return (1.0 if valid else 0.0), {
        "checked_at": when.isoformat(),
        "valid": valid,
        "failed_since": failed_since[:5],
    }


def _next_step(
    entry: ChecklistEntry,
    quiz: float,
    lab_evidence: dict[str, Any],
    self_score: float,
    evidence: dict[str, Any],
) -> str:
    if quiz < READY_AT:
        return f"복습: studyapp quiz --checklist {entry.id} (연결 문항 {evidence['quiz'].get('items', 0)}개)"
    for lab, info in lab_evidence.items():
        if not info["ok_runs"]:
            return f"실습: studyapp lab {lab}"
        if info["check_question"] not in (None, True):
            return f"실습 확인 문제: studyapp lab {lab} (끝난 뒤 확인 문제에 답하기)"
    if self_score < 1.0:
        return f"자기 점검: studyapp progress --self-check {entry.id}"
    return "준비됨"


def checklist_readiness(
    content: Content, store: ProgressStore, now: datetime, lab_questions: set[str] | None = None
) -> list[Readiness]:
    """Readiness for every checklist item. `lab_questions`: labs that ask a check question."""
    questions = all_questions(content)
    schedules = store.schedules()
    runs = store.lab_runs()
    answers = store.lab_answers()
    checked = store.self_checks()
    reviews = store.reviews()
    questioned = lab_questions or set()
    result = []
    for entry in content.checklist:
        linked = linked_questions(entry, questions)
        quiz, quiz_evidence = _quiz_score(linked, schedules, now)
        labs, lab_evidence = _lab_score(entry.labs, runs, answers, questioned)
        self_score, self_evidence = _self_check(entry, checked, linked, reviews)
        evidence = {"quiz": quiz_evidence, "labs": lab_evidence, "self_check": self_evidence}
        readiness = WEIGHTS["quiz"] * quiz + WEIGHTS["labs"] * labs + WEIGHTS["self_check"] * self_score
        result.append(
            Readiness(
                entry,
                readiness,
                quiz,
                labs,
                self_score,
                evidence,
                _next_step(entry, quiz, lab_evidence, self_score, evidence),
            )
        )
    return result


def overall(readiness: list[Readiness]) -> float:
    return sum(r.readiness for r in readiness) / len(readiness) if readiness else 0.0
