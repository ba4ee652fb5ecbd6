"""Reusable widgets of the studyapp TUI."""
