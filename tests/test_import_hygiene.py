"""Domain modules never import Textual or torch; the quiz path never imports torch, numpy or pytest."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

from tests.conftest import REPO

DOMAIN_MODULES = [
    "studyapp.cli",
    "studyapp.cli.common",
    "studyapp.content.loader",
    "studyapp.content.render",
    "studyapp.content.similarity",
    "studyapp.quiz.choice",
    "studyapp.content.explain",
    "studyapp.quiz.exam",
    "studyapp.cli.exam",
    "studyapp.quiz.explain",
    "studyapp.cli.explain",
    "studyapp.progress.exams",
    "studyapp.i18n",
    "studyapp.quiz.engine",
    "studyapp.cli.plain",
    "studyapp.progress.db",
    "studyapp.progress.store",
    "studyapp.progress.transfer",
    "studyapp.timetext",
    "studyapp.report.stats",
    "studyapp.report.readiness",
    "studyapp.report.progress_report",
    "studyapp.labrunner.runner",
    "studyapp.labrunner.registry",
]


def _modules_after(code: str) -> set[str]:
    script = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True, cwd=REPO
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_domain_modules_import_neither_textual_nor_torch() -> None:
    loaded = _modules_after("\n".join(f"import {m}" for m in DOMAIN_MODULES))
    assert not {"textual", "torch"} & loaded


def test_plain_quiz_session_never_imports_heavy_modules() -> None:
    code = """
import io, os, tempfile
from pathlib import Path
from studyapp.content.loader import load_content
from studyapp import locations
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions
from studyapp.report.stats import progress_report
content = load_content(locations.content_dir())
store = ProgressStore(Path(tempfile.mkdtemp()) / "p.db")
session = QuizSession(content, store, SessionOptions(mode="cram", count=5, seed=1))
while not session.finished:
    session.answer(session.current.answer if session.current.kind == "ox" else "1")
progress_report(content, store, store.clock())
"""
    loaded = _modules_after(code)
    assert not {"torch", "numpy", "pytest", "textual"} & loaded


def _imports_of(relative: str) -> set[str]:
    """Every module a source file names in an import, at top level or inside a function."""
    tree = ast.parse((REPO / relative).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_exam_archive_stores_rows_without_the_quiz() -> None:
    """progress/exams.py keeps the rows an exam hands it; the exam's types stay in quiz/."""
    assert not {
        name for name in _imports_of("studyapp/progress/exams.py") if name.startswith("studyapp.quiz")
    }
    assert "studyapp.quiz.exam" not in _modules_after("import studyapp.progress.exams")


def test_the_store_modules_import_one_way() -> None:
    """db <- store <- transfer: the file, the repository over it, the export format over both."""
    assert not {n for n in _imports_of("studyapp/progress/db.py") if n.startswith("studyapp.progress")}
    store_imports = _imports_of("studyapp/progress/store.py")
    assert not {n for n in store_imports if n.startswith("studyapp.progress.transfer")}


def test_the_quiz_path_never_imports_the_yaml_loader() -> None:
    """The quiz reads the JSON content cache; PyYAML and the loader are for `check` and cache misses."""
    loaded = _modules_after(
        "import studyapp.cli.main, studyapp.cli.quiz, studyapp.cli.common, studyapp.quiz.engine, "
        "studyapp.quiz.kinds, studyapp.tui.app, studyapp.tui.screens.quiz"
    )
    assert not {"yaml", "studyapp.content.loader"} & loaded
