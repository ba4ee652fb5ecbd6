"""Hostile content and a planted cache, driven through `studyapp check / topics / quiz --plain`.

Each case is a failure from the reliability review (../shared/reviews/reliability-bad-input.md,
section 1): every one must end in exit 2 with `FILE:LINE` problems (one line for the commands
other than `check`), never an internal error, a traceback, a hang or code that runs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from studyapp.content import cache as content_cache
from studyapp.content.cache import load_cached
from studyapp.content.loader import load_content
from studyapp.content.model import Content, Item, Term
from tests.conftest import REPO
from tests.helpers_content import GLOSSARY, write_content, write_glossary

ITEMS = Path("items") / "performance-analysis.yaml"
COMMANDS = (("check",), ("topics",), ("quiz", "--plain", "--count", "3"))
MEMORY_CAP = 2 * 1024**3  # a billion-laughs expansion would blow through this; a real run stays far below


def run_capped(*args: str, home: Path, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """`python -m studyapp ARGS` under a memory cap, as the review ran it (`ulimit -v`)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        STUDYAPP_HOME=str(home),
        STUDYAPP_CACHE=str(home / "cache"),
        STUDYAPP_LANG="en",
    )
    return subprocess.run(
        [sys.executable, "-m", "studyapp", *args],
        capture_output=True,
        text=True,
        input="o\nx\nq\n",
        env=env,
        cwd=REPO,
        timeout=timeout,
        preexec_fn=cap,
    )


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    """A scratch copy of the shipped content, for planting one fault."""
    root = tmp_path / "content"
    shutil.copytree(REPO / "content", root)
    return root


def assert_problem_everywhere(root: Path, home: Path, expected: str, commands=COMMANDS) -> None:
    for command in commands:
        result = run_capped(*command, "--content", str(root), home=home)
        where = " ".join(command)
        assert result.returncode == 2, (where, result.returncode, result.stderr[-500:])
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr, where
        assert expected in result.stderr, (where, result.stderr[-500:])
        assert "\x1b" not in result.stderr and "\x00" not in result.stderr, where
        if command[0] != "check":
            assert len(result.stderr.strip().splitlines()) == 1, (where, result.stderr)
            assert result.stderr.startswith("studyapp: invalid content: "), where


def _billion_laughs(levels: int = 9) -> str:
    text = "lols:\n  a: &a [l,l,l,l,l,l,l,l,l]\n"
    for i in range(levels - 1):
        name, previous = chr(98 + i), chr(97 + i)
        text += f"  {name}: &{name} [{','.join(['*' + previous] * 9)}]\n"
    return text


def _chain(length: int = 200) -> str:
    text = "chain:\n  z0: &z0 [l]\n"
    text += "".join(f"  z{i}: &z{i} [*z{i - 1}, *z{i - 1}]\n" for i in range(1, length))
    return text


@pytest.mark.parametrize(
    ("prefix", "old", "new"),
    [
        (_billion_laughs(), "    answer: O\n", "    answer: *i\n"),  # review 1 #2
        (_billion_laughs(), "    checklist: [", "    checklist: [*i, "),  # review 1 #3
        (_chain(), "    answer: O\n", "    answer: *z199\n"),  # review 1 #4 (hung for ever)
    ],
    ids=["laughs-in-answer", "laughs-in-checklist", "alias-chain"],
)
def test_alias_bombs_are_refused_with_file_and_line(
    shipped: Path, tmp_path: Path, prefix: str, old: str, new: str
) -> None:
    path = shipped / ITEMS
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(prefix + text.replace(old, new, 1), encoding="utf-8")
    assert_problem_everywhere(shipped, tmp_path / "home", f"{ITEMS}:2: YAML anchor", commands=COMMANDS)


def test_a_lone_alias_is_refused_too(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    items = root / "items" / "demo.yaml"
    items.write_text(
        items.read_text(encoding="utf-8").replace("    answer: O\n", "    answer: *nothing\n", 1),
        encoding="utf-8",
    )
    result = run_capped("check", "--content", str(root), home=tmp_path / "home")
    assert result.returncode == 2
    assert "items/demo.yaml:" in result.stderr and "alias '*nothing'" in result.stderr


def test_a_huge_integer_is_a_problem(shipped: Path, tmp_path: Path) -> None:  # review 1 #31
    topic = shipped / "topics" / "performance-analysis.yaml"
    lines = topic.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("order:"))
    lines[number] = "order: " + "9" * 5000 + "\n"
    topic.write_text("".join(lines), encoding="utf-8")
    assert_problem_everywhere(
        shipped,
        tmp_path / "home",
        f"performance-analysis.yaml:{number + 1}: YAML syntax error: number too large",
    )


def test_an_impossible_date_is_a_problem(shipped: Path, tmp_path: Path) -> None:  # review 1 #60
    path = shipped / ITEMS
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    section: patterns", "    section: 2024-02-30", 1), encoding="utf-8")
    line = path.read_text(encoding="utf-8").splitlines().index("    section: 2024-02-30") + 1
    assert_problem_everywhere(
        shipped, tmp_path / "home", f"{ITEMS}:{line}: YAML syntax error: not a real date"
    )


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _symlink_to(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


def _loop(path: Path) -> None:
    path.symlink_to(path.name)


@pytest.mark.parametrize(
    ("name", "make", "expected"),
    [
        ("items/zz-fifo.yaml", _fifo, "not a regular file but a FIFO"),  # review 1 #54 (hung)
        ("items/zz-zero.yaml", _symlink_to("/dev/zero"), "not a regular file but a device"),  # #55
        ("items/zz-rand.yaml", _symlink_to("/dev/urandom"), "not a regular file but a device"),  # #56
        ("items/ghost.yaml", _symlink_to("/nonexistent"), "broken symbolic link to /nonexistent"),  # #36
        ("topics/loop.yaml", _loop, "symbolic link loop"),  # review 1 #33
        ("items/zz-dir.yaml", Path.mkdir, "Is a directory"),  # review 1 #38 (already handled)
    ],
    ids=["fifo", "dev-zero", "dev-urandom", "dangling-symlink", "symlink-loop", "directory"],
)
def test_special_files_are_one_problem_each(
    shipped: Path, tmp_path: Path, name: str, make: Callable[[Path], None], expected: str
) -> None:
    make(shipped / name)
    assert_problem_everywhere(shipped, tmp_path / "home", f"{name}:1: cannot read file: ")
    result = run_capped("check", "--content", str(shipped), home=tmp_path / "home")
    assert expected in result.stderr


def test_a_file_of_nul_bytes_is_one_line(shipped: Path, tmp_path: Path) -> None:  # review 1 #12
    (shipped / ITEMS).write_bytes(b"\0" * 5000)
    assert_problem_everywhere(shipped, tmp_path / "home", f"{ITEMS}:1: YAML error: control characters")


@pytest.mark.parametrize(
    "escaped",
    ["pa-001\\0", "\\e[2J\\e]0;pwn\\a"],  # review 1 #27, #29: echoed raw into the error line
    ids=["nul-in-id", "escape-in-id"],
)
def test_control_characters_in_an_id_are_never_echoed(shipped: Path, tmp_path: Path, escaped: str) -> None:
    path = shipped / ITEMS
    text = path.read_text(encoding="utf-8")
    assert "  - id: pa-001\n" in text
    path.write_text(text.replace("  - id: pa-001\n", f'  - id: "{escaped}"\n', 1), encoding="utf-8")
    line = text.splitlines().index("  - id: pa-001") + 1
    assert_problem_everywhere(shipped, tmp_path / "home", f"{ITEMS}:{line}: ")
    result = run_capped("check", "--content", str(shipped), home=tmp_path / "home")
    assert "control character" in result.stderr


def test_an_escape_sequence_in_an_explanation_is_a_problem(shipped: Path, tmp_path: Path) -> None:
    # review 1 #62: `quiz --plain` printed ESC ]0;… BEL ESC [31m raw, retitling the terminal.
    path = shipped / ITEMS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("    explanation: "))
    lines[number] = '    explanation: "\\e]0;PWNED\\a\\e[31m 빨간 글씨"\n'
    path.write_text("".join(lines), encoding="utf-8")
    assert_problem_everywhere(
        shipped, tmp_path / "home", f"{ITEMS}:{number + 1}: text holds the control character U+001B"
    )


# -- the content cache ------------------------------------------------------------------------------


class _Planted:
    """Unpickling this runs `touch MARKER` (what an attacker would put in the data directory)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_planted_cache_never_runs_and_the_command_works(tmp_path: Path) -> None:
    # review 1 #61: `load_cached` unpickled DATA_DIR/cache/content-*.pickle before checking it.
    home = tmp_path / "home"
    first = run_capped("topics", home=home)
    assert first.returncode == 0, first.stderr
    cache_files = sorted((home / "cache").glob("content-*"))
    assert cache_files, "topics wrote no cache"
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Planted(marker))
    for path in cache_files:  # the real cache file, overwritten with a pickle
        path.write_bytes(payload)
    for suffix in (".pickle", ".json"):  # and files under every name a cache has had
        (home / "cache" / f"content-{'0' * 16}{suffix}").write_bytes(payload)
    second = run_capped("topics", "--json", home=home)
    assert not marker.exists(), "code from the data directory ran"
    assert second.returncode == 0, second.stderr
    assert second.stderr == ""
    assert "performance-analysis" in second.stdout


def test_a_planted_json_cache_builds_nothing_but_the_model(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    cache_dir = tmp_path / "cache"
    load_cached(root, cache_dir)
    (target,) = cache_dir.glob("content-*.json")
    stamp = content_cache.fingerprint(root)
    assert stamp is not None
    popen = {"$type": "Popen", "fields": {"args": ["touch", str(tmp_path / "pwned")]}}
    planted = json.dumps({"format": content_cache.CACHE_FORMAT, "stamp": stamp, "content": popen})
    target.write_text(planted, encoding="utf-8")
    assert len(load_cached(root, cache_dir).items) == 20  # rebuilt silently
    assert not (tmp_path / "pwned").exists()
    header = json.dumps({"format": content_cache.CACHE_FORMAT, "stamp": stamp})[:-1]
    nested = header + ', "content": ' + "[" * 100_000 + "]" * 100_000 + "}"
    target.write_text(nested, encoding="utf-8")
    assert len(load_cached(root, cache_dir).items) == 20


def _rich_content(root: Path) -> Path:
    """The demo content with every optional item field set and a glossary whose terms set every
    optional field too (relations included), so the round trip sees them all."""
    glossary = (
        GLOSSARY.replace(
            "    confused_with: [test-stub]\n",
            "    confused_with: [test-stub]\n    broader: [test-harness]\n",
            1,
        )
        .replace(
            "    confused_with: [test-stub, test-harness]\n",
            "    confused_with: [test-stub, test-harness]\n    narrower: [boundary-value-analysis]\n",
            1,
        )
        .replace(
            "    confused_with: [test-driver, mock-object]\n",
            "    confused_with: [test-driver, mock-object]\n    not_with: [equivalence-partitioning]\n",
            1,
        )
    )
    assert glossary.count("broader:") == glossary.count("narrower:") == glossary.count("not_with:") == 1
    write_glossary(write_content(root), glossary)
    items = root / "items" / "demo.yaml"
    text = items.read_text(encoding="utf-8")
    text = text.replace(
        "  - id: demo-007\n",
        "  - id: demo-007\n    exam_note: 시험은 예전 설명을 정답으로 본다.\n    siblings: [demo-008]\n",
        1,
    )
    items.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("which", ["shipped", "every-field"])
def test_the_cached_model_equals_the_freshly_loaded_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    root = REPO / "content" if which == "shipped" else _rich_content(tmp_path / "content")
    cache_dir = tmp_path / "cache"
    fresh = load_content(root)
    load_cached(root, cache_dir)
    assert list(cache_dir.glob("content-*.json")), "the model was not cached"

    def no_loading(*args: object, **kwargs: object) -> Content:
        raise AssertionError("the loader ran: the cache was not used")

    monkeypatch.setattr("studyapp.content.loader.load_content", no_loading)
    cached = load_cached(root, cache_dir)
    assert cached == fresh
    assert cached.glossary, "both contents have a glossary: its terms must round-trip too"
    if which == "every-field":
        item = cached.items["demo-007"]
        assert item.exam_note == "시험은 예전 설명을 정답으로 본다." and item.siblings == ("demo-008",)
        # Every field of every item is set somewhere in this content: a new field with a type the
        # cache cannot spell would fail above (no cache file), one it drops would fail here.
        for field in dataclasses.fields(item):
            assert any(
                getattr(i, field.name)
                != (field.default if field.default is not dataclasses.MISSING else None)
                for i in cached.items.values()
            ), field.name
        for field in dataclasses.fields(Term):  # the same for the glossary's terms
            assert any(
                getattr(term, field.name)
                != (field.default if field.default is not dataclasses.MISSING else None)
                for term in cached.glossary.values()
            ), field.name


def test_a_cache_of_the_wrong_shape_is_rebuilt(tmp_path: Path) -> None:
    """A cache with the right fingerprint but a value of the wrong type (planted, or from a model
    changed without a version bump) is not trusted: the content is loaded again."""
    root = write_content(tmp_path / "content")
    cache_dir = tmp_path / "cache"
    load_cached(root, cache_dir)
    (target,) = cache_dir.glob("content-*.json")
    data = json.loads(target.read_text(encoding="utf-8"))
    # a model value is the list of its fields in declaration order
    position = {cls: [f.name for f in dataclasses.fields(cls)] for cls in (Content, Item)}
    item = data["content"][position[Content].index("items")]["demo-001"]
    item[position[Item].index("statement")] = 5
    target.write_text(json.dumps(data), encoding="utf-8")
    content = load_cached(root, cache_dir)
    assert isinstance(content.items["demo-001"].statement, str)
    assert content == load_content(root)


def test_a_file_over_the_size_limit_is_one_problem(shipped: Path, tmp_path: Path) -> None:
    # review 1 #59: an 83 MB items file took 35–43 s to report; past 64 MB it is refused unread.
    path = shipped / "items" / "zz-huge.yaml"
    with path.open("wb") as handle:
        handle.write(b"# padding\n" * (7 * 1024 * 1024))  # 70 MB
    assert_problem_everywhere(shipped, tmp_path / "home", "items/zz-huge.yaml:1: file too large (over 64 MB)")
