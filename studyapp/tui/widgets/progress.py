"""A one-line session progress bar drawn as text (cheaper than ProgressBar's three widgets)."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

LINE = "━"


class SessionProgress(Widget):
    """How far through the session: a thin line, accent up to `fraction`, dim after it."""

    DEFAULT_CSS = "SessionProgress { height: 1; padding: 0 1; }"

    fraction: reactive[float] = reactive(0.0)

    def render(self) -> Content:
        width = self.content_size.width
        done = round(min(1.0, max(0.0, self.fraction)) * width)
        return Content.assemble((LINE * done, "$accent"), (LINE * (width - done), "$panel-lighten-2"))
