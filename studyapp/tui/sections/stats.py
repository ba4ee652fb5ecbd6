"""Stats: mastery, retention, reviews per day and the due forecast."""

from studyapp.tui.sections.base import Section

SECTION = Section("stats", "studyapp.tui.screens.stats:StatsScreen", "f6")
