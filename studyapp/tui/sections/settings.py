"""Settings: exam date, pass mark and per-topic cutoff."""

from studyapp.tui.sections.base import Section

SECTION = Section("settings", "studyapp.tui.screens.settings:SettingsScreen", "f8")
