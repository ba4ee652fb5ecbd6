"""The number box of calculation drills."""

from __future__ import annotations

from textual.widgets import Input

# Letters the quiz screen binds (end, undo, card, lab, unsure): no drill answer needs them
# ("5.9", "25%", "5.9배", "166.7 items/s" do not), so they act as keys even while typing.
QUIZ_KEYS = frozenset("qucl?")


class DrillInput(Input):
    """An Input that leaves the quiz keys to the screen; graded on Submitted, never per keystroke."""

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        if character is not None and character in QUIZ_KEYS:
            return False
        return super().check_consume_key(key, character)
