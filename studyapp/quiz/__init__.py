"""The quiz engine: FSRS scheduling, session selection and grading. No Textual here."""
