"""Checklist: readiness for the 11 exam checklist items."""

from studyapp.tui.sections.base import Section

SECTION = Section("checklist", "studyapp.tui.screens.checklist:ChecklistScreen", "f5")
