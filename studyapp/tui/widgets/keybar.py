"""The bottom line: the keys that apply right now, in the interface language.

A single widget that draws the screen's active bindings, instead of Textual's `Footer`, which
recomposes a child widget per key whenever the bindings change (every answer changes them) —
in Textual 8.2 those children are not released, so a long session grew by ~0.3 MiB a question,
and each recompose cost a layout pass right after the feedback frame. This one only repaints.
Keys can be clicked, as in `Footer`. When the line is too narrow, the way out (Esc) is kept and
the keys listed last are dropped first.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.content import Content
from textual.widget import Widget

PALETTE_ACTIONS = ("command_palette", "app.command_palette")


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._spans: list[tuple[int, int, Any, str]] = []  # (start, end, namespace, action)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Any) -> None:
        self.refresh()

    def _entries(self) -> tuple[list[tuple[str, str, bool, Any, str]], tuple[str, str, Any, str] | None]:
        """(key, description, enabled, namespace, action) per shown action, and the palette key."""
        entries: list[tuple[str, str, bool, Any, str]] = []
        seen: set[str] = set()
        palette = None
        for namespace, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.action in PALETTE_ACTIONS:
                palette = (self.app.get_key_display(binding), binding.description, namespace, binding.action)
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            entries.append(
                (self.app.get_key_display(binding), binding.description, enabled, namespace, binding.action)
            )
        return entries, palette

    def render(self) -> Content:
        width = self.content_size.width
        entries, palette = self._entries()
        right = Content.assemble((palette[0], "bold $text"), " ", palette[1]) if palette else Content("")
        room = width - (right.cell_length + 2 if palette else 0)
        pieces = [
            Content.assemble(
                (key, "bold $text" if enabled else "dim"), " ", (description, "" if enabled else "dim")
            )
            for key, description, enabled, _namespace, _action in entries
        ]
        # Esc is never dropped: reserve its room first, then fill with the others in order.
        keep = [key.lower() in ("esc", "escape") for key, *_ in entries]
        budget = room - sum(p.cell_length + 2 for p, k in zip(pieces, keep, strict=True) if k)
        for index, piece in enumerate(pieces):
            if keep[index]:
                continue
            if piece.cell_length + 2 > budget:
                break
            keep[index] = True
            budget -= piece.cell_length + 2
        parts: list[Content] = []
        spans: list[tuple[int, int, Any, str]] = []
        used = 0
        for (_key, _description, _enabled, namespace, action), piece, kept in zip(
            entries, pieces, keep, strict=True
        ):
            if not kept:
                continue
            gap = 2 if parts else 0
            if used + gap + piece.cell_length > room:
                break
            start = used + gap
            parts.append(Content(" " * gap) + piece)
            spans.append((start, start + piece.cell_length, namespace, action))
            used = start + piece.cell_length
        line = Content("").join(parts)
        if palette:
            filler = max(1, width - used - right.cell_length)
            spans.append((used + filler, width, palette[2], palette[3]))
            line = line + Content(" " * filler) + right
        self._spans = spans
        return line

    async def _on_click(self, event: events.Click) -> None:
        x = event.x - self.styles.padding.left
        for start, end, namespace, action in self._spans:
            if start <= x < end:
                event.stop()
                await self.app.run_action(action, namespace)
                return
