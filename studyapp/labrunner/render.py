"""A lab result as rich renderables and terminal plots: shared by `studyapp lab` and the TUI."""

from __future__ import annotations

from typing import Any

from studyapp.i18n import Translator
from studyapp.labrunner.runner import LabOutcome
from studyapp.safetext import printable


def render_result(outcome: LabOutcome, t: Translator) -> list[Any]:
    """Rich renderables for a result: summary, tables, plots, findings, artifacts."""
    # rich costs 60-180 ms to import; only a finished lab's report needs it.
    from rich.table import Table
    from rich.text import Text

    result = outcome.result or {}
    parts: list[Any] = [Text(str(result.get("summary", "")), style="bold")]
    for spec in result.get("tables", []):
        table = Table(title=Text(str(spec.get("title", ""))), title_justify="left")
        for column in spec.get("columns", []):
            table.add_column(str(column))
        for row in spec.get("rows", []):
            table.add_row(*(Text(format_cell(v)) for v in row))
        parts.append(table)
    for plot in result.get("plots", []):
        text = plot_text(plot)
        if text:
            parts.append(Text.from_ansi(text))
    findings = result.get("findings", [])
    if findings:
        parts.append(Text(t("lab.findings"), style="bold"))
        parts += [Text(f"• {finding}") for finding in findings]
    artifacts = dict(result.get("artifacts") or {})
    artifacts.setdefault("dir", str(outcome.artifact_dir))
    parts.append(Text(t("lab.artifacts"), style="bold"))
    parts += [Text(printable(f"  {name}: {path}")) for name, path in artifacts.items()]
    return parts


def format_cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def plot_text(plot: dict[str, Any], width: int = 70, height: int = 16) -> str:
    """A terminal line plot of `plot` ({title, x, series, xlabel, ylabel}) via plotext."""
    try:  # plotext: ~100 ms to import, and only plots need it
        import plotext as plt
    except ImportError:
        return ""
    x = plot.get("x") or []
    series = plot.get("series") or {}
    if not x or not series:
        return ""
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("pro")  # coloured series, readable on dark and light terminals
    for name, values in series.items():
        points = [(a, b) for a, b in zip(x, values, strict=False) if isinstance(b, (int, float))]
        if points:
            plt.plot([p[0] for p in points], [p[1] for p in points], label=str(name), marker="dot")
    plt.title(str(plot.get("title", "")))
    plt.xlabel(str(plot.get("xlabel", "")))
    plt.ylabel(str(plot.get("ylabel", "")))
    return str(plt.build())
