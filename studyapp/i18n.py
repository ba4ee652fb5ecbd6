"""UI strings in Korean and English. Content stays Korean; only the interface is translated."""

from __future__ import annotations

import locale
import os

LANGS = ("ko", "en")

_STRINGS: dict[str, dict[str, str]] = {
    "ko": {
        "check.ok": "콘텐츠 정상: 주제 {topics}개, 문항 {items}개, 체크리스트 {checklist}개",
        "check.failed": "콘텐츠 문제 {count}건",
        "topics.header": "주제",
        "topics.items": "문항",
        "topics.labs": "실습",
        "cards.alt": "다른 표현",
        "cards.note": "현재 사실",
        "cards.notes": "보충",
        "cards.unknown": "알 수 없는 주제 '{topic}'. 가능한 주제: {choices}",
        "not_built": "'{command}'은(는) 아직 만들어지지 않았습니다",
        "interrupted": "중단됨",
    },
    "en": {
        "check.ok": "content ok: {topics} topics, {items} items, {checklist} checklist items",
        "check.failed": "{count} content problem(s)",
        "topics.header": "topic",
        "topics.items": "items",
        "topics.labs": "labs",
        "cards.alt": "other wording",
        "cards.note": "current fact",
        "cards.notes": "notes",
        "cards.unknown": "unknown topic '{topic}'. Topics: {choices}",
        "not_built": "'{command}' is not built yet",
        "interrupted": "interrupted",
    },
}


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
        """Let other modules (the TUI, the lab runner) add their own strings."""
        for lang, table in strings.items():
            _STRINGS.setdefault(lang, {}).update(table)
