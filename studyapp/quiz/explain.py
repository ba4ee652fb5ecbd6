"""Explain-it: write an answer in your own words, compare it with the model answer, tick the key
points you covered. The stored result (date and coverage) is readiness evidence for the checklist
item (studyapp/report/readiness.py, docs/READINESS.md).

The flow is one `ExplainSession` per prompt: WRITING → (submit) → REVIEWING → (finish) → DONE.
The model answer stays hidden until an answer was written, so the learner commits to their own
words first; an empty answer is refused (a blank is not an attempt). No Textual here: the TUI
screen and `--plain` both drive this class. Rows go to the store's `explain_answers` table.

A draft (the text being written, one per prompt) is kept in the store's `meta` table until the
answer is saved, so that leaving the screen, switching prompts or quitting loses nothing.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from studyapp.atomicfile import write_text_atomically
from studyapp.content.explain import ExplainPrompt
from studyapp.errors import StudyappError
from studyapp.ids import new_id
from studyapp.progress.db import SCHEMA_VERSION
from studyapp.progress.store import ProgressStore, from_iso, to_iso
from studyapp.progress.transfer import EXPORT_FORMAT

WRITING = "writing"
REVIEWING = "reviewing"
DONE = "done"
MAX_ANSWER_CHARS = 20_000  # a pasted novel is not an answer, and the row must stay small
DRAFT_PREFIX = "explain.draft."  # + prompt id: a meta key


@dataclass(frozen=True)
class ExplainResult:
    uid: str
    prompt_id: str
    checklist_id: str
    answer_text: str
    covered: tuple[int, ...]  # indices into the prompt's key points
    total_points: int
    answered_at: datetime

    @property
    def coverage(self) -> float:
        return len(self.covered) / self.total_points if self.total_points else 0.0


@dataclass
class ExplainSession:
    prompt: ExplainPrompt
    answer_text: str = ""
    covered: set[int] = field(default_factory=set)
    state: str = WRITING
    result: ExplainResult | None = None

    def submit_answer(self, text: str) -> None:
        """The learner's own answer; after this the model answer and the key points are shown."""
        if self.state != WRITING:
            raise StudyappError("the answer was already submitted")
        cleaned = text.strip()
        if not cleaned:
            raise StudyappError("write an answer first: an empty answer is not recorded")
        self.answer_text = cleaned[:MAX_ANSWER_CHARS]
        self.state = REVIEWING

    def set_point(self, index: int, covered: bool) -> None:
        if self.state != REVIEWING:
            raise StudyappError("key points are ticked after the answer is written")
        if not 0 <= index < len(self.prompt.key_points):
            raise StudyappError(f"no key point {index + 1} (1–{len(self.prompt.key_points)})")
        if covered:
            self.covered.add(index)
        else:
            self.covered.discard(index)

    @property
    def coverage(self) -> float:
        return len(self.covered) / len(self.prompt.key_points) if self.prompt.key_points else 0.0

    def finish(self, store: ProgressStore) -> ExplainResult:
        """Store the answer with today's date and the covered key points (one atomic write)."""
        if self.state != REVIEWING:
            raise StudyappError("nothing to record: write an answer first")
        self.result = record_result(
            store, self.prompt, self.answer_text, tuple(sorted(self.covered)), store.clock()
        )
        self.state = DONE
        return self.result


def keep_unsaved(store: ProgressStore, session: ExplainSession, problem: str) -> str:
    """The answer could not be stored (a full disk): write it as a progress export that
    `studyapp progress --import-data` merges later (the data directory, else the temp directory),
    as quiz answers are kept. Returns one line for the learner."""
    when = store.clock()
    row = {
        "uid": new_id(),
        "prompt_id": session.prompt.id,
        "checklist_id": session.prompt.checklist,
        "answer_text": session.answer_text,
        "covered_json": json.dumps(sorted(session.covered)),
        "total_points": len(session.prompt.key_points),
        "answered_at": to_iso(when),
    }
    export = {
        "format": EXPORT_FORMAT,
        "schema": SCHEMA_VERSION,
        "exported_at": to_iso(when),
        "reviews": [],
        "explain_answers": [row],
    }
    text = json.dumps(export, ensure_ascii=False, indent=1)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for folder in (store.path.parent, Path(tempfile.gettempdir())):
        target = folder / f"unsaved-explain-{stamp}.json"
        try:
            write_text_atomically(target, text, prefix=".unsaved-explain-")  # mode 0600 (mkstemp)
        except OSError:
            continue
        return (
            f"your answer could not be saved ({problem}); it was written to {target} — "
            f"once that is fixed run: studyapp progress --import-data {target}"
        )
    return f"your answer could not be saved ({problem}) and no file could hold it"


def record_result(
    store: ProgressStore,
    prompt: ExplainPrompt,
    answer_text: str,
    covered: tuple[int, ...],
    when: datetime,
) -> ExplainResult:
    result = ExplainResult(
        uid=new_id(),
        prompt_id=prompt.id,
        checklist_id=prompt.checklist,
        answer_text=answer_text,
        covered=covered,
        total_points=len(prompt.key_points),
        answered_at=when,
    )
    with store.transaction() as db:
        db.execute("DELETE FROM meta WHERE key = ?", (DRAFT_PREFIX + prompt.id,))  # saved: no draft
        db.execute(
            "INSERT INTO explain_answers(uid, prompt_id, checklist_id, answer_text, covered_json,"
            " total_points, answered_at) VALUES (?,?,?,?,?,?,?)",
            (
                result.uid,
                result.prompt_id,
                result.checklist_id,
                result.answer_text,
                json.dumps(list(result.covered)),
                result.total_points,
                to_iso(result.answered_at),
            ),
        )
    return result


def load_draft(store: ProgressStore, prompt_id: str) -> str:
    """The text written for this prompt and not saved as an answer yet ("" when none)."""
    return store.get_meta(DRAFT_PREFIX + prompt_id) or ""


def save_draft(store: ProgressStore, prompt_id: str, text: str) -> None:
    """Keep `text` as this prompt's draft (one write); blank text removes the draft."""
    store.set_meta(DRAFT_PREFIX + prompt_id, text[:MAX_ANSWER_CHARS] if text.strip() else None)


def drafted(store: ProgressStore) -> set[str]:
    """The prompt ids that have a draft."""
    with store.transaction() as db:
        rows = db.execute("SELECT key FROM meta WHERE key LIKE ?", (DRAFT_PREFIX + "%",)).fetchall()
    return {row[0].removeprefix(DRAFT_PREFIX) for row in rows}


def history(store: ProgressStore, prompt_id: str | None = None) -> list[ExplainResult]:
    """Stored explain-it answers, oldest first (rows that do not parse are skipped)."""
    query, params = "SELECT * FROM explain_answers", ()
    if prompt_id is not None:
        query, params = query + " WHERE prompt_id = ?", (prompt_id,)
    with store.transaction() as db:
        rows = db.execute(query + " ORDER BY answered_at, id", params).fetchall()
    results = []
    for row in rows:
        try:
            covered = json.loads(row["covered_json"])
            total = int(row["total_points"])
            when = from_iso(row["answered_at"])
        except (ValueError, TypeError):
            continue
        if not isinstance(covered, list):
            continue
        indices = tuple(
            c for c in covered if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < total
        )
        results.append(
            ExplainResult(
                uid=row["uid"],
                prompt_id=row["prompt_id"],
                checklist_id=row["checklist_id"],
                answer_text=row["answer_text"],
                covered=indices,
                total_points=total,
                answered_at=when,
            )
        )
    return results


def latest_by_prompt(store: ProgressStore) -> dict[str, ExplainResult]:
    return {result.prompt_id: result for result in history(store)}


def find_prompt(prompts: list[ExplainPrompt], wanted: str) -> list[ExplainPrompt]:
    """`wanted` is a prompt id, a checklist id or a checklist number: the prompts it names."""
    by_id = [p for p in prompts if p.id == wanted]
    if by_id:
        return by_id
    return [p for p in prompts if p.checklist == wanted]


def next_prompt(prompts: list[ExplainPrompt], store: ProgressStore) -> ExplainPrompt | None:
    """The prompt to practise next: one never answered, else the one answered longest ago."""
    if not prompts:
        return None
    latest = latest_by_prompt(store)
    never = [p for p in prompts if p.id not in latest]
    if never:
        return never[0]
    return min(prompts, key=lambda p: latest[p.id].answered_at)
