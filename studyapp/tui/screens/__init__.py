"""The screens of the studyapp TUI (imported lazily by `studyapp.tui.app`)."""
