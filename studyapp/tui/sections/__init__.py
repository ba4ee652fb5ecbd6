"""The TUI's top-level sections, one module each: the app's modes, their F-keys, the palette
entries and the help screen's rows are all derived from what is found here.

A module in this package defines `SECTION = Section(...)` (studyapp/tui/sections/base.py). Every
module here is found on first use, so adding a section is adding one file: its `Section`, and its
screen in the same file or, for a screen with costly imports, in a module the `screen` string names
(imported on first use, so `studyapp quiz` paints its first question without loading the others).
"""

from __future__ import annotations

import functools

from studyapp.i18n import Translator
from studyapp.plugins import defined_in
from studyapp.tui.sections.base import Section

__all__ = ["Section", "section_ids", "sections"]


@functools.cache
def sections() -> tuple[Section, ...]:
    """Every section of this package, in F-key order (Home first)."""
    found = defined_in(__name__, __path__, "SECTION", Section)
    for section in found:
        if section.strings:
            Translator().register(dict(section.strings))
    return tuple(sorted(found, key=lambda section: (section.order(), section.id)))


def section_ids() -> tuple[str, ...]:
    return tuple(section.id for section in sections())
