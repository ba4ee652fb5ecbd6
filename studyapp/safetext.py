"""Text from files and labs, made safe to print on a terminal.

A content file, a lab's result or a path can hold terminal control characters: an `ESC ]0;…BEL`
retitles the window, `ESC [2J` clears the screen. Everything studyapp echoes from outside (error
lines, lab reports) goes through `printable`, which shows such characters as visible escapes
(`\\x1b`) instead of sending them to the terminal. Newline and tab are kept.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 controls (U+0080–U+009F).
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def has_control_chars(text: str) -> bool:
    return CONTROL_CHARS.search(text) is not None


def first_control_char(text: str) -> str | None:
    match = CONTROL_CHARS.search(text)
    return match.group() if match else None


def printable(text: str) -> str:
    """`text` with every control character but newline and tab shown as `\\xNN`."""
    if not CONTROL_CHARS.search(text):
        return text
    return CONTROL_CHARS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def printable_data(value: object) -> object:
    """`printable` applied to every string in a JSON-like value (dicts, lists, strings)."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(str(k)): printable_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable_data(v) for v in value]
    return value
