"""Progress: the SQLite store, statistics and checklist readiness."""
