"""Small text widgets for Korean prose: a bullet line with a hanging indent, and `HangingRows`,
a block of lines whose wrapped continuations start under the text, not under the marker."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
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


Row = tuple[Content, Content]  # (marker, text): the text's wrapped lines start under itself


def row(text: Content | str, marker: Content | str = "") -> Row:
    return (
        Content(marker) if isinstance(marker, str) else marker,
        Content(text) if isinstance(text, str) else text,
    )


class HangingRows(Visual):
    """Rows of (marker, text) for one `Static`: `1) a long option…` wraps under `a`, not under `1`.

    Korean wraps at spaces like any Content. A row's text may hold several lines (each one hangs
    under the same marker). Used where options, checkboxes and explanations must stay readable
    as separate paragraphs in one widget (quiz feedback, explain-it key points).
    """

    def __init__(self, rows: Iterable[Row]) -> None:
        self.rows = list(rows)

    @property
    def plain(self) -> str:
        return "\n".join(marker.plain + text.plain for marker, text in self.rows)

    def __str__(self) -> str:  # like Content: the plain text (tests read a widget's render())
        return self.plain

    def lines(self, width: int) -> list[Content]:
        out: list[Content] = []
        for marker, text in self.rows:
            indent = marker.cell_length
            if indent >= width // 2:  # a narrow terminal: no room to hang, wrap as one paragraph
                out.extend((marker + text).wrap(max(1, width)) or [Content("")])
                continue
            wrapped = [piece for line in text.split("\n") for piece in (line.wrap(width - indent) or [line])]
            wrapped = wrapped or [Content("")]
            out.append(marker + wrapped[0])
            out.extend(Content(" " * indent) + piece for piece in wrapped[1:])
        return out

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return Content("\n").join(self.lines(width)).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max((marker.cell_length + text.cell_length for marker, text in self.rows), default=0)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))

    def get_minimal_width(self, rules: RulesMap) -> int:
        return max((marker.cell_length for marker, _text in self.rows), default=0) + 1


__all__ = ["Hanging", "HangingRows", "Row", "row"]
