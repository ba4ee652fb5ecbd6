"""What a TUI section is: a Textual mode with its own screen stack, an F-key, and its words."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple

from textual.binding import Binding
from textual.screen import Screen


# Not a dataclass: the class is made while `studyapp quiz` starts (0.15 ms; a frozen dataclass 1.05 ms).
class Section(NamedTuple):
    """One top-level section. Its words follow the id: `key.ID` (F-key label), `cmd.ID` and
    `cmd.ID.help` (palette), `help.ID` (help heading) — in the catalogue (studyapp/i18n) for the
    built-in sections, or in `strings` ({"ko": {...}, "en": {...}}) for a section that brings its own."""

    id: str
    screen: str  # "module:Class", imported on first use
    key: str  # the F-key that switches to it; sections are ordered by it
    strings: Mapping[str, dict[str, str]] = {}  # a shared default, never mutated

    def screen_class(self) -> type[Screen[Any]]:
        module, _, name = self.screen.partition(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    def make_screen(self) -> Screen[Any]:
        return self.screen_class()()

    def binding(self) -> Binding:
        return Binding(self.key, f"section('{self.id}')", f"key.{self.id}", show=False, id=self.id)

    def order(self) -> int:
        digits = self.key.removeprefix("f")
        return int(digits) if digits.isdigit() else 100
