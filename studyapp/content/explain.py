"""Explain-it prompts (content/explain.yaml): a question, a model answer and 3–6 key points for
the checklist items that ask the learner to explain.

Read and checked on its own (not part of the cached `Content`): the file is small, and only the
explain-it screens and `studyapp check` need it. Problems are `FILE:LINE` like every other file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studyapp.content.loader import ContentError, Problem, _check_control_chars, _Collector
from studyapp.content.model import Content, Location
from studyapp.content.yamlfile import FileProblem, LinedDict, LinedList, read_yaml

EXPLAIN_FILE = "explain.yaml"
KEY_POINTS_RANGE = (3, 6)
# A checklist item whose text asks for this should have at least one prompt.
EXPLAIN_ASKS = re.compile(r"설명할 수 있는가|제시할 수 있는가")


@dataclass(frozen=True)
class ExplainPrompt:
    id: str
    checklist: str
    prompt: str
    model_answer: str
    key_points: tuple[str, ...]
    location: Location


def check_explain(
    root: Path, checklist: dict[str, str] | None = None
) -> tuple[list[ExplainPrompt], list[Problem]]:
    """Read `root/explain.yaml`. `checklist`: id → text of the checklist items (None: not known, so
    links are not checked). A missing file is no problem: there are simply no prompts."""
    path = root / EXPLAIN_FILE
    c = _Collector()
    c.where = path
    if not path.exists() and not path.is_symlink():
        return [], []
    try:
        data = read_yaml(path)
    except FileProblem as exc:
        c.error(exc.line, exc.message)
        return [], c.problems
    _check_control_chars(c, data)
    file_data = c.mapping(data, 1, "explain file")
    if file_data is None:
        return [], c.problems
    c.fields(file_data, "explain file", ["prompts"], [])
    entries = file_data.get("prompts")
    if not isinstance(entries, LinedList) or not entries:
        if "prompts" in file_data:
            c.error(file_data.line_of("prompts"), "explain file: 'prompts' must be a non-empty list")
        return [], c.problems
    prompts: list[ExplainPrompt] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        prompt = _read_prompt(c, entry, entries.line_of(index), path, checklist)
        if prompt is None:
            continue
        if prompt.id in seen:
            c.error(
                prompt.location.line,
                f"duplicate explain prompt id '{prompt.id}' (first defined at {path}:{seen[prompt.id]})",
            )
            continue
        seen[prompt.id] = prompt.location.line
        prompts.append(prompt)
    if checklist is not None:
        covered = {p.checklist for p in prompts}
        for entry_id, text in checklist.items():
            if EXPLAIN_ASKS.search(text) and entry_id not in covered:
                c.warn(1, f"checklist item '{entry_id}' asks to explain but has no explain prompt")
    problems = sorted(c.problems, key=lambda p: (p.line, p.message))
    return (prompts if not any(not p.warning for p in problems) else []), problems


def _read_prompt(
    c: _Collector, entry: Any, line: int, path: Path, checklist: dict[str, str] | None
) -> ExplainPrompt | None:
    data = c.mapping(entry, line, "explain prompt")
    if data is None:
        return None
    before = len(c.problems)
    c.fields(data, "explain prompt", ["id", "checklist", "prompt", "model_answer", "key_points"], [])
    prompt_id = c.slug(data, "id", "explain prompt")
    what = f"explain prompt '{prompt_id or '?'}'"
    checklist_id = c.slug(data, "checklist", what)
    if checklist_id is not None and checklist is not None and checklist_id not in checklist:
        c.error(
            data.line_of("checklist"),
            f"{what}: unknown checklist item '{checklist_id}' (checklist: {', '.join(checklist)})",
        )
    question = c.text(data, "prompt", what)
    model_answer = c.text(data, "model_answer", what)
    points = _read_key_points(c, data, what)
    if len(c.problems) > before or None in (prompt_id, checklist_id, question, model_answer):
        return None
    assert prompt_id and checklist_id and question and model_answer
    return ExplainPrompt(
        id=prompt_id,
        checklist=checklist_id,
        prompt=question,
        model_answer=model_answer,
        key_points=points,
        location=Location(path, data.line),
    )


def _read_key_points(c: _Collector, data: LinedDict, what: str) -> tuple[str, ...]:
    value = data.get("key_points")
    if value is None:
        return ()
    low, high = KEY_POINTS_RANGE
    if not isinstance(value, LinedList):
        c.error(data.line_of("key_points"), f"{what}: 'key_points' must be a list of {low}–{high} texts")
        return ()
    points: list[str] = []
    for index, point in enumerate(value):
        if not isinstance(point, str) or not point.strip():
            c.error(value.line_of(index), f"{what}: key point {index + 1} must be non-empty text")
            continue
        if point.strip() in points:
            c.error(value.line_of(index), f"{what}: key point {index + 1} repeats an earlier one")
            continue
        points.append(point.strip())
    if not low <= len(value) <= high:
        c.error(data.line_of("key_points"), f"{what}: has {len(value)} key points, needs {low}–{high}")
    return tuple(points)


def checklist_texts(content: Content | None) -> dict[str, str] | None:
    return {entry.id: entry.text for entry in content.checklist} if content is not None else None


def load_explain(content: Content) -> list[ExplainPrompt]:
    """The prompts for `content`, or ContentError (one line per problem) when the file is broken."""
    prompts, problems = check_explain(content.root, checklist_texts(content))
    errors = [p for p in problems if not p.warning]
    if errors:
        raise ContentError(errors, base=Path.cwd())
    return prompts


def prompts_for(prompts: list[ExplainPrompt], checklist_id: str) -> list[ExplainPrompt]:
    return [p for p in prompts if p.checklist == checklist_id]
