"""End to end: Home in a real terminal (tmux) on a store with thousands of answers to one item.

PR.tui-home-crash (review 2026-12-second M1): with 2000 answers to one item imported (1000 were
fine), `studyapp` died at start with exit 1 and printed Textual's traceback, with the recall
model's traced answers in its locals, into the terminal. Home shows the exam prediction, which
is what broke, so it is waited for on screen; then the learner leaves with `q` and the shell
prints studyapp's exit status."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.conftest import run_cli
from tests.test_prediction_heavy import export_file, one_item_reviews
from tests.tui.test_e2e_tmux import REPO, Tmux, pytestmark, tmux  # noqa: F401  (the fixture)

__all__ = ["pytestmark"]

NOW = "2026-12-01T10:00:00+00:00"  # an hour after the last imported answer


def test_home_opens_on_2000_answers_to_one_item(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    home = tmp_path / "home"
    env = {"STUDYAPP_HOME": str(home), "STUDYAPP_NOW": NOW}
    source = export_file(tmp_path / "one-item.json", one_item_reviews(2000, 0.7, 7))
    imported = run_cli("progress", "--import-data", str(source), env=env)
    assert imported.returncode == 0, imported.stderr

    command = f'cd {REPO} && {sys.executable} -m studyapp --lang en; echo "studyapp-exit=$?"; sleep 120'
    tmux.start(
        command,
        {**env, "LANG": "C.UTF-8", "STUDYAPP_LANG": "", "PYTHONPATH": str(REPO), "TERM": "xterm-256color"},
        (100, 30),
    )
    first = tmux.wait(
        lambda text: "predicted" in text or "studyapp-exit=" in text,
        "Home's exam prediction (or studyapp's end)",
        timeout=120,  # start-up and the fit on a shared machine
    )
    assert "studyapp-exit=" not in first and "Traceback" not in first, first
    assert "An exam today: predicted" in " ".join(first.split()), first
    tmux.send("q")
    ended = tmux.wait(lambda text: "studyapp-exit=" in text, "studyapp's exit status", timeout=60)
    assert re.search(r"studyapp-exit=0\b", ended), ended
    assert "Traceback" not in ended and "internal error" not in ended, ended
