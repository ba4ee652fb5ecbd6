"""studyapp: a terminal study app for the 성능 분석 (AI model performance analysis) exam part.

The package is split by concern: `content` (model, loader, checks), `quiz` (engine, scheduler,
session selection), `progress` (SQLite store, statistics, readiness), `labrunner` (runs labs in
subprocesses), `cli` and `tui` (Textual screens). Only `tui` imports Textual; nothing here
imports torch — labs do that in their own processes.
"""

__version__ = "0.1.0"
