"""A tiny labs tree for the exercise tests (pointed at with STUDYAPP_LABS)."""
