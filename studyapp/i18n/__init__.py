"""UI strings in Korean and English. Content stays Korean; only the interface is translated."""

from __future__ import annotations

import locale
import os

from studyapp.i18n import en, ko

LANGS = ("ko", "en")

# One catalogue per language (ko.py, en.py). `register` adds a plug-in's own words (a question
# kind or a section that brings its strings in its own module).
_STRINGS: dict[str, dict[str, str]] = {"ko": dict(ko.STRINGS), "en": dict(en.STRINGS)}


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
        table = _STRINGS[self.lang]
        template = table.get(key) or _STRINGS["en"].get(key) or key
        return template.format(**values) if values else template

    def register(self, strings: dict[str, dict[str, str]]) -> None:
        """Add a plug-in's own strings (`QuestionKind.strings`); the app's own are in ko.py/en.py."""
        for lang, table in strings.items():
            _STRINGS.setdefault(lang, {}).update(table)
