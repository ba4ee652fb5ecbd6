"""The Textual interface of studyapp. Build it with `studyapp.tui.app.make_app`.

Nothing is imported here, so `import studyapp.tui` costs nothing; Textual loads with `.app`.
"""
