"""Exercises: write the code yourself and check it on this machine."""

from studyapp.tui.sections.base import Section

SECTION = Section("exercises", "studyapp.tui.screens.exercises:ExercisesScreen", "f7")
