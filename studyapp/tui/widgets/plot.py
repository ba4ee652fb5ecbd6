"""Plots in the TUI, drawn by textual-plot's `PlotWidget` (a maintained Textual widget: braille
lines on a real canvas, axes with ticks, a legend). `studyapp lab` and `--plain` output keep
plotext (studyapp/labrunner/render.py): there the plot is text in a terminal's scrollback.

The widget is a picture here, not a control: it never takes the focus (its own keys, ←/→ to pan
and `r` to reset, would shadow the screens' `r` quick run and the arrow keys), and the data come
in once. textual-plot imports numpy; this module loads only when a screen draws a plot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import cycle
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static
from textual_plot import HiResMode, NumericAxisFormatter, PlotWidget

# Distinct on dark and light themes; series beyond six repeat the colours.
SERIES_STYLES = ("cyan", "magenta", "yellow", "green", "red", "blue")


def numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


class NamedTicks(NumericAxisFormatter):
    """Ticks where the numeric formatter puts them (0, 5, 10 …), labelled by position: x is an
    index into `names` (dates, say)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        labels = []
        for tick in ticks:
            index = round(tick)
            exact = abs(tick - index) < 1e-9 and 0 <= index < len(self.names)
            labels.append(self.names[index] if exact else "")
        return labels


class LinePlot(Vertical):
    """A titled line plot: `series` maps a name to y values, aligned with `x`.

    `x_labels` names the x ticks (dates, say) when x is a position; points that are not numbers
    are left out, and a plot with no numbers at all shows only its title.
    """

    DEFAULT_CSS = """
    LinePlot { height: auto; margin-top: 1; }
    LinePlot > .plot-title { height: auto; text-style: bold; }
    LinePlot > PlotWidget { height: 14; }
    LinePlot > .plot-legend { height: auto; padding-left: 8; }
    """

    def __init__(
        self,
        title: str,
        x: Sequence[Any],
        series: Mapping[str, Sequence[Any]],
        xlabel: str = "",
        ylabel: str = "",
        x_labels: Sequence[str] | None = None,
        y_range: tuple[float, float] | None = None,
        mark: tuple[float, str] | None = None,
        classes: str = "",
    ) -> None:
        super().__init__(classes=classes)
        self.title_text = title
        self.x = list(x)
        self.series = {str(name): list(values) for name, values in series.items()}
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_labels = list(x_labels) if x_labels is not None else None
        self.y_range = y_range
        self.mark = mark  # a vertical line at x, with its legend label ("today")

    def compose(self) -> ComposeResult:
        yield Static(Content(self.title_text), classes="plot-title", markup=False)
        plot = PlotWidget(allow_pan_and_zoom=False)
        plot.can_focus = False
        yield plot
        yield Static(classes="plot-legend", markup=False)

    def on_mount(self) -> None:
        # After the PlotWidget's own mount, which clears the canvas.
        self.call_after_refresh(self._draw)

    def _draw(self) -> None:
        found = self.query(PlotWidget)
        if not found:  # removed before it was drawn (the screen refreshed its data again)
            return
        plot = found.first()
        drawn = 0
        legend: list[Content] = []
        for (name, values), style in zip(self.series.items(), cycle(SERIES_STYLES)):
            points = [(a, b) for a, b in zip(self.x, values, strict=False) if numeric(a) and numeric(b)]
            if not points:
                continue
            xs, ys = [float(a) for a, _ in points], [float(b) for _, b in points]
            if len(points) == 1:  # a line needs two points: show the one as a dot
                plot.scatter(xs, ys, marker="●", marker_style=style, label=name)
            else:
                plot.plot(xs, ys, line_style=style, hires_mode=HiResMode.BRAILLE, label=name)
            legend.append(Content.assemble(("━━ ", style), name))
            drawn += 1
        if not drawn:
            plot.display = False
            return
        if self.x_labels is not None:
            plot.set_x_formatter(NamedTicks(self.x_labels))
        if self.y_range is not None:
            plot.set_ylimits(*self.y_range)
        if self.mark is not None:
            plot.add_v_line(self.mark[0], line_style="dim", label=self.mark[1])
        plot.set_xlabel(self.xlabel)
        plot.set_ylabel(self.ylabel)
        if not self.xlabel:
            plot.margin_bottom = 2  # the tick labels only: no empty label row
        if self.mark is not None:
            legend.append(Content.assemble(("│ ", "dim"), self.mark[1]))
        # The legend goes under the plot, not in it: a box inside the canvas sat on the curves
        # wherever it was anchored (c7), and Hangul labels ran off its right edge before.
        self.query_one(".plot-legend", Static).update(
            Content("   ").join(legend) if drawn > 1 or self.mark else ""
        )


__all__ = ["LinePlot"]
