"""The number box of calculation drills."""

from __future__ import annotations

from textual.widgets import Input

# `?` marks the answer unsure; no number needs it. Every other printable key is typed into the
# box, letters included (`c`, `l`, `q` used to jump out of it): Esc ends, ctrl+z undoes, and Tab
# leaves the box so that c / l / u / q work as keys.
UNSURE_KEY = "?"


class DrillInput(Input):
    """An Input that leaves `?` to the screen; graded on Submitted, never per keystroke."""

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        if character == UNSURE_KEY:
            return False
        return super().check_consume_key(key, character)
