"""Labs: list, run and read the hands-on labs."""

from studyapp.tui.sections.base import Section

SECTION = Section("labs", "studyapp.tui.screens.labs:LabsScreen", "f4")
