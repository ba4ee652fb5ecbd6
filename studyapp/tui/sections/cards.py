"""Cards: the concept cards by topic, and search over them."""

from studyapp.tui.sections.base import Section

SECTION = Section("cards", "studyapp.tui.screens.cards:CardsScreen", "f3")
