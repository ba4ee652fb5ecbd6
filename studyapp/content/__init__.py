"""Content: the typed model of cards, items and the checklist, and the loader that checks it."""

from studyapp.content.loader import ContentError, Problem, check_content, load_content
from studyapp.content.model import Content, Item, Section, Topic

__all__ = ["Content", "ContentError", "Item", "Problem", "Section", "Topic", "check_content", "load_content"]
