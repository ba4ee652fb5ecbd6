"""The TUI's interface strings in Korean and English (content text stays Korean).

Binding descriptions in the screens' BINDINGS are keys into these tables ("key.answer_o");
`translate_bindings` swaps them for the chosen language when a screen is built, so the footer,
the help screen and the command palette all speak the same language.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from studyapp.i18n import Translator


def translate_bindings(node: Any, t: Translator) -> None:
    """Replace translation keys in a node's binding descriptions with text in `t`'s language.

    Textual copies a class's BINDINGS into each instance (`_bindings`); we rewrite that copy, so
    the class attribute keeps the keys and every instance can have its own language.
    """
    bindings_map = getattr(node, "_bindings", None)
    table = getattr(bindings_map, "key_to_bindings", None)
    if not isinstance(table, dict):
        return
    for key, bindings in table.items():
        table[key] = [
            replace(b, description=t(b.description)) if b.description.startswith("key.") else b
            for b in bindings
        ]


def relabel_binding(node: Any, action: str, description: str) -> None:
    """Give the binding of `action` on this node another description (what the key does now),
    for this instance only, like `translate_bindings`."""
    bindings_map = getattr(node, "_bindings", None)
    table = getattr(bindings_map, "key_to_bindings", None)
    if not isinstance(table, dict):
        return
    for key, bindings in table.items():
        table[key] = [replace(b, description=description) if b.action == action else b for b in bindings]
