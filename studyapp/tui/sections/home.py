"""Home: mastery per topic and what is due today."""

from studyapp.tui.sections.base import Section

SECTION = Section("home", "studyapp.tui.screens.home:HomeScreen", "f2")
