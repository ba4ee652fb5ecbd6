"""A yes/no question over the current screen: "quit the mock exam?", "leave without saving?".

Enter (or y) answers yes, Esc (or n) no; the key bar shows these two keys only, not the keys of
the screen underneath. Dismissed with True or False.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from studyapp.tui.screens.base import StudyModal
from studyapp.tui.strings import relabel_binding
from studyapp.tui.widgets.keybar import KeyBar


class ConfirmScreen(StudyModal):
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > #confirm-question {
        width: 60; max-width: 100%; height: auto; padding: 1 2;
        border: round $warning; background: $surface;
    }
    ConfirmScreen .confirm-body { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "decide(True)", "key.confirm_yes", key_display="⏎"),
        Binding("escape,n", "decide(False)", "key.confirm_no", key_display="esc"),
    ]

    def __init__(self, title: str, body: str, yes: str, no: str) -> None:
        """`yes` / `no`: what Enter and Esc do, said in the key bar ("quit", "keep going")."""
        super().__init__()
        self.title_text = title
        self.body = body
        relabel_binding(self, "decide(True)", yes)
        relabel_binding(self, "decide(False)", no)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-question"):
            yield Static(Content.styled(self.title_text, "bold"), markup=False)
            yield Static(Content(self.body), classes="confirm-body", markup=False)
        yield KeyBar()

    def action_decide(self, yes: bool) -> None:
        self.dismiss(yes)


__all__ = ["ConfirmScreen"]
