"""What every studyapp screen shares: access to the app's data, translated bindings, a title bar."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from studyapp.i18n import Translator
from studyapp.quiz.presenting import fit
from studyapp.tui.strings import translate_bindings

if TYPE_CHECKING:
    from studyapp.tui.app import StudyApp


class StudyMixin:
    """`self.study` is the StudyApp; `self.t` its translator."""

    @property
    def study(self) -> StudyApp:
        return self.app  # type: ignore[attr-defined,no-any-return]

    @property
    def t(self) -> Translator:
        return self.study.t


class StudyScreen(StudyMixin, Screen[Any]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        translate_bindings(self, self.study.t)


class StudyModal(StudyMixin, ModalScreen[Any]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        translate_bindings(self, self.study.t)


class TitleBar(Widget):
    """One line: where you are on the left (bold), a short status on the right.

    Drawn as one widget (it is on every screen, the quiz's first paint included). The right
    side is kept whole; the left is cut by terminal cells, never through a Hangul syllable.
    """

    DEFAULT_CSS = """
    TitleBar { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    left: reactive[str] = reactive("", layout=False)
    right: reactive[str] = reactive("", layout=False)
    urgent: reactive[bool] = reactive(False, layout=False)  # the right side in the error colour

    def __init__(self, left: str = "", right: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_reactive(TitleBar.left, left)
        self.set_reactive(TitleBar.right, right)

    def render(self) -> Content:
        width = self.content_size.width
        right = fit(self.right, max(0, width // 2))
        room = width - cell_len(right) - (2 if right else 0)
        left = fit(self.left, max(0, room))
        gap = " " * max(0, width - cell_len(left) - cell_len(right))
        return Content.assemble((left, "bold"), gap, (right, "bold $error" if self.urgent else "$text-muted"))

    def set(self, left: str | None = None, right: str | None = None) -> None:
        if left is not None:
            self.left = left
        if right is not None:
            self.right = right
