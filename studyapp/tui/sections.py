"""The TUI's top-level sections, in one table: the app's modes, their F-keys, the palette entries
and the help screen's rows are all derived from it.

A section is a Textual mode with its own screen stack. Its screen module is imported on first
use, so `studyapp quiz` paints its first question without loading the others. Its words follow
the id: `key.ID` (F-key label), `cmd.ID` and `cmd.ID.help` (palette), `help.ID` (help heading).
Adding a section: write its screen module and add one row here (and its words to the catalogue).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from textual.binding import Binding
from textual.screen import Screen


@dataclass(frozen=True)
class Section:
    id: str
    screen: str  # "module:Class", imported on first use
    key: str  # the F-key that switches to it

    def screen_class(self) -> type[Screen[Any]]:
        module, _, name = self.screen.partition(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    def make_screen(self) -> Screen[Any]:
        return self.screen_class()()

    def binding(self) -> Binding:
        return Binding(self.key, f"section('{self.id}')", f"key.{self.id}", show=False, id=self.id)


SECTIONS: tuple[Section, ...] = (
    Section("home", "studyapp.tui.screens.home:HomeScreen", "f2"),
    Section("cards", "studyapp.tui.screens.cards:CardsScreen", "f3"),
    Section("labs", "studyapp.tui.screens.labs:LabsScreen", "f4"),
    Section("checklist", "studyapp.tui.screens.checklist:ChecklistScreen", "f5"),
    Section("stats", "studyapp.tui.screens.stats:StatsScreen", "f6"),
    Section("exercises", "studyapp.tui.screens.exercises:ExercisesScreen", "f7"),
    Section("settings", "studyapp.tui.screens.settings:SettingsScreen", "f8"),
)
SECTION_IDS = tuple(section.id for section in SECTIONS)
