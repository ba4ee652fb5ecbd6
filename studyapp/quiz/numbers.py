"""Numbers as people type them into a calculation drill: `0.111`, `1/9`, `12.5%`, `1,000`, `6.4배`.

`parse_number` reads one typed answer into a float, or None when it is not a number. Beyond a
plain decimal it accepts:

- a unit after the number (`6.4배`, `166.7 items/s`, `5.9x`) and words before it (`약 5.9`);
- a trailing `%`: for a drill whose unit is not `%`, `12.5%` means 0.125;
- grouping commas (`1,000` and `12,345.6` are thousands) and a decimal comma (`0,25`, `5,9`): a
  single comma followed by exactly three digits is a thousands separator, otherwise a decimal one;
- exponents (`1e-1`), full-width digits (NFKC), and the minus signs `−` / `–`;
- simple arithmetic: `+ - * / ×  ÷`, parentheses and unary minus (`1/9`, `1/(0.1+0.9/16)`).

Arithmetic is parsed by a small recursive-descent reader, never `eval`: only numbers, the four
operators and parentheses are understood, expressions are at most `MAX_LENGTH` characters, and
division by zero reads as "not a number". Standard library only (the quiz path stays light).
"""

from __future__ import annotations

import math
import re
import unicodedata

MAX_LENGTH = 60
PREFIXES = ("약", "≈", "~", "=", "대략", "about", "초당")
# Korean counters too: drills ask "초당 몇 개인가?", "몇 건인가?", "몇 ms가 걸리는가?" (`83.3개`, `9건`, `610 밀리초`).
UNITS = ("items/s", "item/s", "개/s", "개/초", "/s", "배", "x", "×", "times", "개", "건", "밀리초")
# Examples of answers the parser accepts; the error message quotes these (tests check each).
EXAMPLES = ("5.9", "1/9", "12.5%")

_NUMBER = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?", re.IGNORECASE)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d*)?")
_OPERATORS = {"×": "*", "÷": "/", "−": "-", "–": "-"}
_TIMES_X = re.compile(r"(?<=[\d)])\s*x\s*(?=[\d(.])")  # `2x3` is a product; a trailing x was a unit


class _Unreadable(ValueError):
    pass


def _strip_affixes(text: str, unit: str) -> tuple[str, bool]:
    """Remove leading words and trailing units / `%`; (rest, had_percent)."""
    s = text
    for prefix in PREFIXES:
        if s.lower().startswith(prefix):
            s = s[len(prefix) :].strip()
    percent = False
    changed = True
    while changed:  # units and "%" in any order ("59 %", "5.9 배", "5.9x")
        changed = False
        for suffix in (unit, *UNITS, "%"):
            if suffix and s.lower().endswith(suffix.lower()) and len(s) > len(suffix):
                percent = percent or suffix == "%"
                s = s[: -len(suffix)].strip()
                changed = True
    return s, percent


def _normalize_commas(s: str) -> str:
    """Thousands separators out, a decimal comma into a point."""
    if "," not in s:
        return s
    out: list[str] = []
    # Look at each number-with-commas on its own, so `1,000/4` and `0,5*2` both work.
    for token in re.split(r"([^\d.,]+)", s):
        if "," not in token:
            out.append(token)
        elif _THOUSANDS.fullmatch(token) and not re.fullmatch(r"0,\d{3}", token):
            out.append(token.replace(",", ""))
        elif token.count(",") == 1 and "." not in token:
            out.append(token.replace(",", "."))
        else:
            raise _Unreadable(token)
    return "".join(out)


class _Reader:
    """expression := term (('+'|'-') term)* ; term := factor (('*'|'/') factor)* ;
    factor := ('-'|'+') factor | number | '(' expression ')'"""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def peek(self) -> str:
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1
        return self.text[self.at] if self.at < len(self.text) else ""

    def read(self) -> float:
        value = self.expression()
        if self.peek():
            raise _Unreadable(self.text[self.at :])
        return value

    def expression(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.text[self.at]
            self.at += 1
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> float:
        value = self.factor()
        while self.peek() in ("*", "/"):
            op = self.text[self.at]
            self.at += 1
            right = self.factor()
            if op == "*":
                value *= right
            elif right == 0:
                raise _Unreadable("division by zero")
            else:
                value /= right
        return value

    def factor(self) -> float:
        char = self.peek()
        if char in ("-", "+"):
            self.at += 1
            value = self.factor()
            return -value if char == "-" else value
        if char == "(":
            self.at += 1
            value = self.expression()
            if self.peek() != ")":
                raise _Unreadable("unclosed parenthesis")
            self.at += 1
            return value
        match = _NUMBER.match(self.text, self.at)
        if match is None:
            raise _Unreadable(self.text[self.at :])
        self.at = match.end()
        return float(match.group())


def parse_number(text: str, unit: str = "") -> float | None:
    """The value of a typed answer, or None when it is not a number (nothing to grade)."""
    s = unicodedata.normalize("NFKC", text).strip()
    if not s or len(s) > MAX_LENGTH:
        return None
    s, percent = _strip_affixes(s, unit)
    for symbol, ascii_op in _OPERATORS.items():
        s = s.replace(symbol, ascii_op)
    s = _TIMES_X.sub("*", s)
    try:
        s = _normalize_commas(s)
        value = _Reader(s).read()
    except _Unreadable:
        return None
    if not math.isfinite(value):
        return None
    return value / 100 if percent and unit != "%" else value


def within(value: float, answer: float, tolerance: float) -> bool:
    """A drill's grading rule: right when within its absolute tolerance (float slack included)."""
    return abs(value - answer) <= tolerance * (1 + 1e-9)
