"""`studyapp check`, `studyapp topics` and `studyapp cards`: the content itself."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from studyapp import locations
from studyapp.cli.common import load_content
from studyapp.content import cues, learned_cues
from studyapp.content.explain import check_explain, checklist_texts
from studyapp.content.loader import check_content
from studyapp.content.model import Content
from studyapp.content.render import render_topic, topic_to_dict
from studyapp.content.similarity import SimilarityIndex, duplicate_problems
from studyapp.errors import EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.exercises.registry import metadata_problems
from studyapp.i18n import Translator
from studyapp.labrunner import registry
from studyapp.quiz.choice_cues import choice_scores
from studyapp.quiz.questions import KIND_DRILL, KIND_GLOSSARY, all_questions
from studyapp.quiz.trace_reading import check_traces

# `studyapp check`'s cue figures: seeds of generated 4-choice questions per topic, and O/X splits
# (tests/test_cues.py and benchmarks/cue_solver.py use more).
CHECK_SEEDS = range(3)
CHECK_SPLITS = 10


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    check = sub.add_parser("check", parents=[common], help="validate the content and report every problem")
    check.set_defaults(handler=cmd_check)
    topics = sub.add_parser("topics", parents=[common], help="list topics with item counts")
    topics.add_argument("--json", action="store_true")
    topics.set_defaults(handler=cmd_topics)
    cards = sub.add_parser("cards", parents=[common], help="read the concept cards")
    cards.add_argument("topic", nargs="?", help="topic id (default: all)")
    cards.add_argument("--json", action="store_true", help="print the content model as JSON")
    cards.set_defaults(handler=cmd_cards)


def load_content_for(args: argparse.Namespace) -> Content:
    """Load and check the content; broken content raises ContentError (one line per problem)."""
    return load_content(args)


def cmd_check(args: argparse.Namespace, t: Translator) -> int:
    try:
        here: Path | None = Path.cwd()
    except OSError:  # run from a folder that was deleted: show absolute paths
        here = None
    root = locations.content_dir(args.content)
    labs = set(registry.discover())
    content, problems = check_content(root, known_labs=labs)
    problems += metadata_problems(content, labs)  # labs/*/exercises/*/exercise.yaml
    problems += check_explain(root, checklist_texts(content))[1]  # content/explain.yaml
    trace_questions, trace_problems = check_traces(root)  # content/traces/: keys computed here
    problems += trace_problems
    figures: list[str] = []
    if content is not None:  # near-duplicate statements and siblings: studyapp/content/similarity.py
        index = SimilarityIndex(content.items.values())  # one for all three: pair scores are reused
        problems += duplicate_problems(content, base=here, index=index)
        if not any(not problem.warning for problem in problems):
            # Item-writing cues (studyapp/content/cues.py), the 4-choice part over generated
            # questions: worth reading once the content is valid, so only then.
            scores = choice_scores(content, CHECK_SEEDS, index=index)
            cue_report = cues.lint(content, scores, base=here, index=index, splits=CHECK_SPLITS)
            problems += cue_report.problems
            figures = cues.format_figures(cue_report)
            # The cue lint that learns (issue 32): a form the fixed rules do not name that gives
            # keys away fails the check (studyapp/content/learned_cues.py).
            learned = learned_cues.learned_cue_report(content.items.values())
            if learned is not None:
                problems += learned_cues.learned_cue_problems(learned, content.items.values(), base=here)
                figures += learned_cues.format_report(learned)
    errors = [p for p in problems if not p.warning]
    for problem in problems:
        print(problem.format(here), file=sys.stderr if not problem.warning else sys.stdout)
    for line in figures:
        print(line)
    if errors or content is None:
        print(t("check.failed", count=len(errors)), file=sys.stderr)
        return EXIT_USAGE
    print(
        t("check.ok", topics=len(content.topics), items=len(content.items), checklist=len(content.checklist))
    )
    if content.glossary:  # content/glossary.yaml is optional
        print(t("check.glossary", terms=len(content.glossary)))
    if trace_questions:
        traces = len({question.trace_id for question in trace_questions})
        print(t("check.traces", questions=len(trace_questions), traces=traces))
    return EXIT_OK


def cmd_topics(args: argparse.Namespace, t: Translator) -> int:
    content = load_content_for(args)
    rows = []
    questions = all_questions(content)
    drills = Counter(q.topic for q in questions.values() if q.kind == KIND_DRILL)
    terms = Counter(q.topic for q in questions.values() if q.kind == KIND_GLOSSARY)
    every = Counter(q.topic for q in questions.values())
    for topic in content.ordered_topics():
        items = content.items_for_topic(topic.id)
        rows.append(
            {
                "id": topic.id,
                "title": topic.title,
                "title_en": topic.title_en,
                "parent": topic.parent,
                "items": len(items),
                "o_items": sum(i.answer == "O" for i in items),
                "drills": drills.get(topic.id, 0),  # Home and the cards count these too (N24)
                "glossary": terms.get(topic.id, 0),
                # every question of the topic: the number Home and the cards show (c11: 0/112 there, 83 here)
                "questions": every.get(topic.id, 0),
                "labs": list(topic.labs),
            }
        )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK

    table = Table(box=None)
    table.add_column("id", no_wrap=True)  # an id is typed: never cut (c13)
    table.add_column(t("topics.header"))
    for column in ("topics.items", "topics.glossary", "topics.drills", "topics.questions"):
        table.add_column(t(column), justify="right")
    table.add_column(t("topics.labs"))
    for row in rows:
        indent = "  └ " if row["parent"] else ""
        table.add_row(
            row["id"],
            f"{indent}{row['title']}",
            str(row["items"]),
            str(row["glossary"]),
            str(row["drills"]),
            str(row["questions"]),
            ", ".join(row["labs"]),
        )
    Console().print(table)
    return EXIT_OK


def cmd_cards(args: argparse.Namespace, t: Translator) -> int:
    content = load_content_for(args)
    if args.topic:
        topic = content.topics.get(args.topic)
        if topic is None:
            raise StudyappError(t("cards.unknown", topic=args.topic, choices=", ".join(content.topics)))
        chosen = [topic]
    else:
        chosen = content.ordered_topics()
    if args.json:
        print(
            json.dumps(
                [topic_to_dict(topic, content) for topic in chosen], ensure_ascii=False, indent=2, default=str
            )
        )
        return EXIT_OK

    console = Console()
    for topic in chosen:
        console.print(render_topic(topic, content, t))
    return EXIT_OK
