"""Small text widgets for Korean prose: a bullet line with a hanging indent."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static


class Hanging(Horizontal):
    """`marker text…` where wrapped lines start under the text, not under the marker."""

    DEFAULT_CSS = """
    Hanging { height: auto; }
    Hanging > .hang-marker { height: auto; }
    Hanging > .hang-text { width: 1fr; height: auto; }
    """

    def __init__(self, marker: str, text: str, classes: str = "", indent: int = 0) -> None:
        super().__init__(classes=classes)
        self._marker = marker
        self._text = text
        self._indent = indent

    def compose(self) -> ComposeResult:
        width = self._indent + cell_len(self._marker) + 1
        mark = Static(Content(" " * self._indent + self._marker), classes="hang-marker", markup=False)
        mark.styles.width = width
        yield mark
        yield Static(Content(self._text), classes="hang-text", markup=False)
