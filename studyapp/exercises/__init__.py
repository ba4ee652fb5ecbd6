"""Exercises: small tasks the learner solves by writing code, checked on their own machine.

Each lab owns its exercises (`labs/NAME/exercises/ID/`, see docs/EXERCISES.md). This package finds
them (`registry`), manages the learner's workspaces (`workspace`), runs a checker in a subprocess
and reads its JSON lines (`checker`), and offers the `studyapp exercise` commands (`cli`). It never
imports Textual or torch.
"""
