"""Property: no mutation of the shipped YAML makes a command crash.

A seeded loop (the same cases on every run, so a failure reproduces) applies 1–3 random
mutations to one shipped content file — delete, duplicate or swap lines, replace a value with a
hostile one, re-indent, truncate, insert a key — and runs `studyapp check`, `studyapp topics`
(the cached path) and `studyapp quiz --plain` (answering o, x, then q) on it through `studyapp.cli.main`, the function `python -m studyapp` calls.
Each run must exit 0 or 2 and never print an internal error or a traceback. In-process; CI runs
all 150 cases: the first 30, then the other 120 in two halves (`slow`, spread over the workers;
tests/conftest.py). The hostile files that need a subprocess (FIFOs, memory caps)
are in tests/test_content_hostile.py.
"""

from __future__ import annotations

import io
import random
import shutil
from pathlib import Path

import pytest

from studyapp import cli
from tests.conftest import REPO

SEED = 20261202
QUICK_CASES = 30  # the developer loop
FULL_CASES = 150  # CI: the same seeded sequence, five times longer (300 took ~110 s of a 2-core CI)
# (first case, end): the quick run, then the rest of the full run in two halves
CASE_RANGES = {
    "quick": (0, QUICK_CASES),
    "full-1of2": (QUICK_CASES, (QUICK_CASES + FULL_CASES) // 2),
    "full-2of2": ((QUICK_CASES + FULL_CASES) // 2, FULL_CASES),
}

HOSTILE_VALUES = [
    "0",
    "-1",
    "99999999999999999999",
    "9" * 5000,
    "0x" + "f" * 40,
    "1e309",
    "-.inf",
    ".nan",
    "3.14",
    "true",
    "no",
    "~",
    "null",
    "''",
    '""',
    "[]",
    "{}",
    "[a, [b, [c]]]",
    "{a: 1, b: [2]}",
    "!!binary aGVsbG8=",
    "!!python/object/apply:os.system ['echo pwned']",
    "!!python/name:os.system",
    "!custom O",
    "*undefined",
    "&anchor value",
    "&self [*self]",
    "2024-02-30",
    "2024-13-01",
    "2024-01-01T25:61:00",
    "2024-01-01",
    "12:30:45",
    '"\\0"',
    '"\\e[2J\\e]0;pwn\\a"',
    '"\\x9b31m"',
    '"\\uFFFE"',
    '"\\ud800"',
    "O",
    "X",
    "o",
    "'O '",
    "pa-001",
    "../../etc/passwd",
    "문항-1",
    "|\n  block\n  text",
    ">-\n  folded",
    "'unterminated",
    '"unterminated',
    "[unclosed",
    "{unclosed",
    "- dash",
    "? complex",
    ": colon",
    "%TAG ! tag:x,2000:",
    "--- second",
    "@reserved",
    "`backtick",
]
KEYS = ["id", "answer", "explanation", "section", "sources", "pattern", "checklist", "siblings", "zz_unknown"]


def _mutate(lines: list[str], rng: random.Random) -> tuple[list[str], list[str]]:
    done = []
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        at = rng.randrange(len(lines))
        kind = rng.choice(["delete", "duplicate", "swap", "value", "value", "indent", "truncate", "key"])
        if kind == "delete":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(at, lines[at])
        elif kind == "swap":
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "value":
            head, colon, _ = lines[at].partition(": ")
            prefix = (
                head + colon if colon else lines[at].rstrip("\n")[: len(lines[at]) - len(lines[at].lstrip())]
            )
            lines[at] = f"{prefix}{rng.choice(HOSTILE_VALUES)}\n"
        elif kind == "indent":
            lines[at] = " " * rng.choice([0, 1, 3, 5, 8]) + lines[at].lstrip(" ")
        elif kind == "truncate":
            text = "".join(lines)
            cut = rng.randrange(len(text.encode("utf-8")))
            lines = text.encode("utf-8")[:cut].decode("utf-8", errors="ignore").splitlines(keepends=True)
        else:
            indent = lines[at][: len(lines[at]) - len(lines[at].lstrip(" "))]
            lines.insert(at, f"{indent}{rng.choice(KEYS)}: {rng.choice(HOSTILE_VALUES)}\n")
        done.append(f"{kind}@{at + 1}")
    return lines, done


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(REPO / "content", root)
    return root


@pytest.mark.parametrize("cases", list(CASE_RANGES.values()), ids=list(CASE_RANGES))
def test_mutated_shipped_yaml_never_crashes_a_command(
    cases: tuple[int, int],
    content_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("STUDYAPP_DEBUG", raising=False)
    rng = random.Random(SEED)
    files = sorted(content_copy.rglob("*.yaml"))
    originals = {path: path.read_text(encoding="utf-8") for path in files}
    home = tmp_path / "home"
    failures: list[str] = []
    exits = {0: 0, 2: 0}
    first, end = cases
    for case in range(end):
        path = rng.choice(files)
        lines, mutations = _mutate(originals[path].splitlines(keepends=True), rng)
        if case < first:
            continue  # drawn only to reach this range's cases of the seeded sequence
        path.write_text("".join(lines), encoding="utf-8")
        for command in (["check"], ["topics", "--json"], ["quiz", "--plain", "--count", "2", "--seed", "1"]):
            monkeypatch.setattr("sys.stdin", io.StringIO("o\nx\nq\n"))
            code = cli.main([*command, "--content", str(content_copy), "--data-dir", str(home)])
            err = capsys.readouterr().err
            exits[code] = exits.get(code, 0) + 1
            if code not in (0, 2) or "internal error" in err or "Traceback" in err:
                where = path.relative_to(content_copy)
                failures.append(f"case {case} {where} {mutations} {command[0]}: rc={code} {err[-300:]!r}")
            if code == 2 and command[0] != "check":
                assert len(err.strip().splitlines()) == 1, err
        path.write_text(originals[path], encoding="utf-8")
    assert not failures, "\n".join(failures)
    assert exits[2] > (end - first) // 2  # most mutations break the content: the test does exercise errors
