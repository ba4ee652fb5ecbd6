"""Reports over every wing: checklist readiness, statistics and the progress report.

Above the domain (quiz, exercises) and the store, below the front ends (cli, tui)."""
