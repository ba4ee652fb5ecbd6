"""One string catalogue per language (studyapp/i18n/ko.py, en.py): same keys, same placeholders,
and every key the code names exists in both."""

from __future__ import annotations

import re
import string

import pytest

from studyapp.i18n import en, ko
from studyapp.quiz.kinds import kinds
from studyapp.tui.sections import sections
from tests.conftest import REPO

# t("key"), self.t("key"), Binding(..., "key.x"), the kinds' *_key attributes, and the CLI's
# option_error("key") and StudyappError(..., key="key").
_KEY_LITERAL = re.compile(
    r"(?:\bt\(\s*|\boption_error\(\s*|\bkey=|_key(?::\s*ClassVar\[[^\]]*\])?\s*=\s*"
    r'|Binding\(\s*"[^"]*"\s*,\s*"[^"]*"\s*,\s*)'
    r'"([a-z][\w-]*(?:\.[\w-]+)+)"'
)


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _tables() -> list[tuple[str, dict[str, str], dict[str, str]]]:
    """The app's catalogue and every plug-in table (a question kind's or a section's own `strings`)."""
    tables = [("studyapp/i18n", ko.STRINGS, en.STRINGS)]
    tables += [
        (f"kind {name}", kind.strings["ko"], kind.strings["en"])
        for name, kind in kinds().items()
        if kind.strings
    ]
    tables += [
        (f"section {section.id}", section.strings["ko"], section.strings["en"])
        for section in sections()
        if section.strings
    ]
    return tables


@pytest.mark.parametrize(("where", "korean", "english"), _tables())
def test_every_string_exists_in_both_languages_with_the_same_placeholders(
    where: str, korean: dict[str, str], english: dict[str, str]
) -> None:
    assert set(korean) == set(english), where
    different = [key for key in korean if _placeholders(korean[key]) != _placeholders(english[key])]
    assert different == [], where


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    named: dict[str, str] = {}
    for path in sorted((REPO / "studyapp").rglob("*.py")):
        if path.parent.name == "i18n":
            continue
        for key in _KEY_LITERAL.findall(path.read_text(encoding="utf-8")):
            named.setdefault(key, str(path.relative_to(REPO)))
    assert len(named) > 200  # the scan itself works (about 330 literal keys)
    missing = {key: where for key, where in named.items() if key not in ko.STRINGS}
    assert missing == {}


def test_the_key_scan_finds_a_planted_key() -> None:
    code = 'self.t("quiz.planted", n=1)\nBinding("q", "quit", "key.planted")\n    hint_key: ClassVar[str] = "choice.planted"\n'
    assert _KEY_LITERAL.findall(code) == ["quiz.planted", "key.planted", "choice.planted"]
    cli = 'raise option_error("cli.planted", value=v)\nStudyappError("x", key="cli.planted2")\n'
    assert _KEY_LITERAL.findall(cli) == ["cli.planted", "cli.planted2"]
