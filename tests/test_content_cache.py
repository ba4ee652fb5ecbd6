"""The content cache: used while files are unchanged, rebuilt after an edit, never hides errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from studyapp.content.cache import load_cached
from studyapp.content.loader import ContentError
from tests.conftest import REPO
from tests.helpers_content import write_content


def test_cache_is_reused_and_rebuilt_on_edit(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    cache = tmp_path / "cache"
    first = load_cached(root, cache)
    assert len(list(cache.glob("content-*.json"))) == 1
    assert load_cached(root, cache).items.keys() == first.items.keys()
    items = root / "items" / "demo.yaml"
    items.write_text(
        items.read_text(encoding="utf-8").replace("데모 문장 7번이다.", "고친 문장 7번이다."),
        encoding="utf-8",
    )
    os.utime(items, ns=(1, 1))  # a different mtime even on coarse clocks
    assert load_cached(root, cache).items["demo-007"].statement == "고친 문장 7번이다."


def test_broken_content_is_reported_even_with_a_cache(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    cache = tmp_path / "cache"
    load_cached(root, cache)
    (root / "checklist.yaml").write_text("title: [", encoding="utf-8")
    with pytest.raises(ContentError, match=r"checklist\.yaml"):
        load_cached(root, cache)


def test_garbage_cache_file_is_ignored(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    cache = tmp_path / "cache"
    load_cached(root, cache)
    (cached,) = cache.glob("content-*.json")
    cached.write_bytes(b"not a cache")
    assert len(load_cached(root, cache).items) == 20


def test_cached_load_does_not_import_yaml(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    load_cached(root, tmp_path / "cache")
    code = (
        "import sys\nfrom pathlib import Path\nfrom studyapp.content.cache import load_cached\n"
        f"load_cached(Path({str(root)!r}), Path({str(tmp_path / 'cache')!r}))\nprint('yaml' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        check=True,
    )
    assert out.stdout.strip() == "False"
