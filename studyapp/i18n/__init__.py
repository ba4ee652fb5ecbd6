"""UI strings in Korean and English. Content stays Korean; only the interface is translated."""

from __future__ import annotations

import importlib
import locale
import os

LANGS = ("ko", "en")

# One catalogue per language (ko.py, en.py), imported when a Translator first needs it: a session
# speaks one language, and the other is not paid for at start-up. `register` adds a plug-in's own
# words (a question kind or a section that brings its strings in its own module).
_STRINGS: dict[str, dict[str, str]] = {}
_REGISTERED: dict[str, dict[str, str]] = {}


def _catalogue(lang: str) -> dict[str, str]:
    table = _STRINGS.get(lang)
    if table is None:
        table = dict(importlib.import_module(f"studyapp.i18n.{lang}").STRINGS)
        table.update(_REGISTERED.get(lang, {}))
        _STRINGS[lang] = table
    return table


def default_lang() -> str:
    """Korean when the locale says so, English otherwise."""
    for variable in ("STUDYAPP_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "")
        if value:
            return "ko" if value.lower().startswith("ko") else "en"
    try:
        code = locale.getlocale()[0] or ""
    except ValueError:
        code = ""
    return "ko" if code.lower().startswith("ko") else "en"


class Translator:
    def __init__(self, lang: str | None = None) -> None:
        self.lang = lang if lang in LANGS else default_lang()

    def __call__(self, key: str, **values: object) -> str:
        template = _catalogue(self.lang).get(key) or _catalogue("en").get(key) or key
        return template.format(**values) if values else template

    def register(self, strings: dict[str, dict[str, str]]) -> None:
        """Add a plug-in's own strings (`QuestionKind.strings`); the app's own are in ko.py/en.py."""
        for lang, table in strings.items():
            _REGISTERED.setdefault(lang, {}).update(table)
            if lang in _STRINGS:
                _STRINGS[lang].update(table)
