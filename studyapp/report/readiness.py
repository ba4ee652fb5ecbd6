"""Checklist readiness: how ready the learner is for each of the 11 exam checklist items.

Evidence per checklist item, each component scored 0–1 (docs/READINESS.md has the reasoning):
- exercises (weight 0.40, the strongest): the linked exercises' status (studyapp.exercises.status):
  a pass with the current checker 1.0, half when the solution was shown first, a pass against a
  changed checker 0.5 until checked again, failing after a pass 0.25, never passed 0;
- quiz (0.35): for every linked question, its FSRS recall probability now if its last answer was
  right (0 if wrong or never seen) — "the share of these items you would get right today";
- explain (0.20): per explain-it prompt of the item, its latest answer's covered key points / all
  key points, averaged over the item's prompts (content/explain.yaml); a bare
  self-check ("I can explain this") counts half of that slot where explain-it prompts exist for the
  item, the whole slot where none do. The self-check stops counting when a linked item is answered
  wrong after it was given;
- labs (0.05, "explored"): a successful run of each linked lab, half of it the answer to the lab's
  check question. Watching a demo is not the skill, so a lab run alone moves readiness by at most 5 %.
A component with nothing to offer an item (no linked exercise, no linked lab) is left out and the
others are scaled up, so no item is credited for evidence that does not exist.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from studyapp.content.model import ChecklistEntry, Content
from studyapp.exercises.status import all_statuses
from studyapp.i18n import Translator
from studyapp.progress.scheduler import ItemSchedule
from studyapp.progress.store import LabRun, ProgressStore, from_iso
from studyapp.quiz.questions import Question, all_questions

WEIGHTS = {"exercises": 0.40, "quiz": 0.35, "explain": 0.20, "labs": 0.05}
SELF_CHECK_SHARE = 0.5  # of the explain slot, for a bare self-check where explain-it prompts exist
READY_AT = 0.8  # a component at or above this needs no next step


@dataclass(frozen=True)
class NextStep:
    """What to do next for a checklist item, decided once here for the CLI and the TUI alike.

    kind: quiz, exercise_start, exercise_check, explain, self_check, lab, lab_question or ready;
    target: the exercise or lab id where the kind names one."""

    kind: str
    target: str = ""
    stale: bool = False  # exercise_check: the checker changed since the pass


@dataclass(frozen=True)
class Readiness:
    entry: ChecklistEntry
    readiness: float
    quiz: float
    labs: float
    self_check: float  # the bare self-check, 0 or 1 (the ✓ on the checklist screen)
    evidence: dict[str, Any]
    next_step: str
    exercises: float = 0.0
    explain: float = 0.0  # the explain slot: explain-it coverage or the self-check's share
    weights: dict[str, float] = field(default_factory=dict)  # this item's weights (they sum to 1)
    action: NextStep = NextStep("ready")  # what `next_step` says, for interfaces to render their way

    @property
    def raise_with(self) -> list[str]:
        """Exercises whose pass would raise this item (not passed, stale or broken)."""
        return [
            exercise_id
            for exercise_id, info in self.evidence.get("exercises", {}).items()
            if info.get("score", 0.0) < 1.0
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.entry.id,
            "number": self.entry.number,
            "text": self.entry.text,
            "readiness": round(self.readiness, 4),
            "components": {
                "exercises": round(self.exercises, 4),
                "quiz": round(self.quiz, 4),
                "explain": round(self.explain, 4),
                "self_check": self.self_check,
                "labs": round(self.labs, 4),
            },
            "weights": {k: round(v, 4) for k, v in self.weights.items()},
            "evidence": self.evidence,
            "exercises": list(self.evidence.get("exercises", {})),
            "raise_with": self.raise_with,
            "next_step": self.next_step,
            "action": {"kind": self.action.kind, "target": self.action.target, "stale": self.action.stale},
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
        return 0.0, {}
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
    entry: ChecklistEntry, checked: dict[str, datetime], linked: list[Question], store: ProgressStore
) -> tuple[float, dict[str, Any]]:
    when = checked.get(entry.id)
    if when is None:
        return 0.0, {"checked_at": None}
    failed_since = store.wrong_since(sorted({q.id for q in linked}), when, 5)
    valid = not failed_since
    return (1.0 if valid else 0.0), {
        "checked_at": when.isoformat(),
        "valid": valid,
        "failed_since": failed_since[:5],
    }


def explain_answers(
    store: ProgressStore, prompts: Mapping[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Explain-it evidence per checklist id, from the table `explain_answers`.

    With `prompts` (checklist id → that item's prompt ids, from content/explain.yaml): the mean over
    the item's prompts of each prompt's latest coverage (a prompt never answered counts 0), so
    answering one of two prompts is half the evidence. Answers to prompts that no longer exist are
    ignored. Without prompts: the latest answer for the item. covered_json is the list of covered
    key-point indices out of total_points.
    """
    with store.transaction() as db:
        rows = db.execute(
            "SELECT prompt_id, checklist_id, covered_json, total_points, answered_at FROM explain_answers"
            " ORDER BY answered_at, id"
        ).fetchall()
    latest: dict[str, dict[str, Any]] = {}
    by_prompt: dict[str, dict[str, Any]] = {}
    for row in rows:
        try:
            covered = json.loads(row["covered_json"])
            total = int(row["total_points"])
            answered_at = from_iso(row["answered_at"])  # a hand-edited row is skipped, not a crash
        except (ValueError, TypeError):
            continue
        if not isinstance(covered, list) or total <= 0:
            continue
        hits = {c for c in covered if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < total}
        answer = {
            "prompt_id": row["prompt_id"],
            "covered": len(hits),
            "total": total,
            "score": len(hits) / total,
            "answered_at": answered_at.isoformat(),
        }
        latest[row["checklist_id"]] = answer
        by_prompt[row["prompt_id"]] = answer
    if not prompts:
        return latest
    result: dict[str, dict[str, Any]] = {}
    for checklist_id, prompt_ids in prompts.items():
        answered = {pid: by_prompt[pid] for pid in prompt_ids if pid in by_prompt}
        if not answered:
            continue
        newest = max(answered.values(), key=lambda a: a["answered_at"])
        result[checklist_id] = {
            **newest,
            "score": sum(a["score"] for a in answered.values()) / len(prompt_ids),
            "prompts_answered": len(answered),
            "prompts_total": len(prompt_ids),
        }
    return result


def explain_prompts_by_checklist(content: Content) -> dict[str, list[str]]:
    """Checklist id → ids of its explain-it prompts (content/explain.yaml). A broken file gives
    none here: it is `studyapp check`'s business, and readiness must still work."""
    try:
        from studyapp.content.explain import check_explain, checklist_texts

        prompts, _problems = check_explain(content.root, checklist_texts(content))
    except Exception:
        return {}
    grouped: dict[str, list[str]] = {}
    for prompt in prompts:
        grouped.setdefault(prompt.checklist, []).append(prompt.id)
    return grouped


def explain_prompt_checklist(content_root: Path) -> set[str]:
    """Checklist ids that have explain-it prompts in content/explain.yaml (read loosely: any
    `checklist` / `checklist_id` value anywhere in the file), so a bare self-check only counts in
    full where no prompt could give better evidence."""
    path = content_root / "explain.yaml"
    if not path.is_file():
        return set()
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except Exception:  # a broken file is `studyapp check`'s business, not readiness's
        return set()
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("checklist", "checklist_id"):
                    values = value if isinstance(value, list) else [value]
                    found.update(v for v in values if isinstance(v, str))
                else:
                    walk(value)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(data)
    return found


def _explain_score(
    entry: ChecklistEntry, self_score: float, answer: dict[str, Any] | None, has_prompts: bool
) -> tuple[float, dict[str, Any]]:
    share = SELF_CHECK_SHARE if has_prompts or answer is not None else 1.0
    explain_score = answer["score"] if answer else 0.0
    return max(explain_score, share * self_score), {
        "prompts": has_prompts,
        "latest": answer,
        "self_check_share": share,
    }


def _exercise_score(
    entry: ChecklistEntry, exercises: Mapping[str, Any], statuses: Mapping[str, Any]
) -> tuple[float | None, dict[str, Any]]:
    linked = [e for e in exercises.values() if entry.id in e.checklist]
    if not linked:
        return None, {}
    evidence = {e.id: statuses[e.id].to_dict() for e in linked}
    return sum(statuses[e.id].score for e in linked) / len(linked), evidence


def _weights(has_exercises: bool, has_labs: bool) -> dict[str, float]:
    chosen = {
        k: w for k, w in WEIGHTS.items() if (k != "exercises" or has_exercises) and (k != "labs" or has_labs)
    }
    total = sum(chosen.values())
    return {k: w / total for k, w in chosen.items()}


def next_action(
    quiz: float,
    lab_evidence: dict[str, Any],
    exercise_evidence: dict[str, Any],
    self_score: float,
    explain: float,
    explain_evidence: dict[str, Any],
) -> NextStep:
    """The first of: recall, exercises, explain-it (or the self-check), labs, the self-check."""
    if quiz < READY_AT:
        return NextStep("quiz")
    for exercise_id, info in exercise_evidence.items():
        if info["status"] == "not started":
            return NextStep("exercise_start", exercise_id)
        if info["score"] < 1.0:
            return NextStep("exercise_check", exercise_id, stale=bool(info["stale"]))
    if explain < READY_AT:
        if explain_evidence.get("prompts"):
            return NextStep("explain")
        if self_score < 1.0:
            return NextStep("self_check")
    for lab, info in lab_evidence.items():
        if not info["ok_runs"]:
            return NextStep("lab", lab)
        if info["check_question"] not in (None, True):
            return NextStep("lab_question", lab)
    if self_score < 1.0 and not explain_evidence.get("latest"):
        return NextStep("self_check")
    return NextStep("ready")


def step_line(
    entry: ChecklistEntry, step: NextStep, evidence: dict[str, Any], t: Translator | None = None
) -> str:
    """The next step as `studyapp progress` prints it, naming the command to run, in `t`'s
    language (Korean without one: the `next_step` field of the JSON report)."""
    return step_text(entry.id, step, evidence.get("quiz", {}).get("items", 0), t or Translator("ko"))


def step_text(entry_id: str, step: NextStep, quiz_items: int, t: Translator) -> str:
    stale = t("progress.step.stale") if step.stale else ""
    if step.kind not in STEP_KINDS:
        return t("progress.step.ready")
    return t(f"progress.step.{step.kind}", id=entry_id, target=step.target, items=quiz_items, stale=stale)


def step_of_row(row: Mapping[str, Any], t: Translator) -> str:
    """A report row's (`Readiness.to_dict()`) next step in `t`'s language (`studyapp progress`
    follows --lang; the stored `next_step` text is Korean)."""
    action = row.get("action") or {}
    step = NextStep(
        str(action.get("kind", "ready")), str(action.get("target", "")), bool(action.get("stale"))
    )
    items = int(row.get("evidence", {}).get("quiz", {}).get("items", 0))
    return step_text(str(row.get("id", "")), step, items, t)


STEP_KINDS = ("quiz", "exercise_start", "exercise_check", "explain", "self_check", "lab", "lab_question")


def _discover_exercises() -> dict[str, Any]:
    try:
        from studyapp.exercises.registry import discover

        return discover()
    except Exception:  # no labs folder, unreadable metadata: readiness still works without them
        return {}


def checklist_readiness(
    content: Content,
    store: ProgressStore,
    now: datetime,
    lab_questions: set[str] | None = None,
    exercises: Mapping[str, Any] | None = None,
) -> list[Readiness]:
    """Readiness for every checklist item. `lab_questions`: labs that ask a check question;
    `exercises`: id → ExerciseInfo (default: every exercise under the labs directory)."""

    questions = all_questions(content)
    schedules = store.schedules()
    runs = store.lab_runs()
    answers = store.lab_answers()
    checked = store.self_checks()
    questioned = lab_questions or set()
    exercises = _discover_exercises() if exercises is None else exercises
    statuses = all_statuses(dict(exercises), store)
    prompt_ids = explain_prompts_by_checklist(content)
    explained = explain_answers(store, prompt_ids)
    prompted = set(prompt_ids) or explain_prompt_checklist(content.root)
    result = []
    for entry in content.checklist:
        linked = linked_questions(entry, questions)
        quiz, quiz_evidence = _quiz_score(linked, schedules, now)
        labs, lab_evidence = _lab_score(entry.labs, runs, answers, questioned)
        self_score, self_evidence = _self_check(entry, checked, linked, store)
        explain, explain_evidence = _explain_score(
            entry, self_score, explained.get(entry.id), entry.id in prompted
        )
        exercise, exercise_evidence = _exercise_score(entry, exercises, statuses)
        weights = _weights(exercise is not None, bool(entry.labs))
        scores = {"exercises": exercise or 0.0, "quiz": quiz, "explain": explain, "labs": labs}
        evidence = {
            "quiz": quiz_evidence,
            "exercises": exercise_evidence,
            "explain": explain_evidence,
            "self_check": self_evidence,
            "labs": lab_evidence,
        }
        readiness = sum(weight * scores[name] for name, weight in weights.items())
        step = next_action(quiz, lab_evidence, exercise_evidence, self_score, explain, explain_evidence)
        result.append(
            Readiness(
                entry=entry,
                readiness=readiness,
                quiz=quiz,
                labs=labs,
                self_check=self_score,
                evidence=evidence,
                next_step=step_line(entry, step, evidence),
                exercises=exercise or 0.0,
                explain=explain,
                weights=weights,
                action=step,
            )
        )
    return result


def overall(readiness: list[Readiness]) -> float:
    return sum(r.readiness for r in readiness) / len(readiness) if readiness else 0.0
