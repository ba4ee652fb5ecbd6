"""`studyapp export --anki FILE` (issue 23 §3): the file is read back as Anki's importer would
(headers, tab-separated fields, HTML), with nothing imported from Anki itself."""

from __future__ import annotations

import csv
import html
import io
import json
from dataclasses import replace
from pathlib import Path

from studyapp import locations
from studyapp.content.anki import field_html, notes, render
from studyapp.content.loader import load_content
from studyapp.content.model import Content
from tests.conftest import run_cli

HEADERS = ("separator", "html", "notetype", "deck", "columns", "guid column", "tags column")


def parse(text: str) -> tuple[dict[str, str], list[list[str]]]:
    """Headers (`#key:value` lines at the top) and the rows, split the way Anki's reader does:
    tab-separated, a field starting with a quote read as a quoted CSV field."""
    lines = text.split("\n")
    headers: dict[str, str] = {}
    while lines and lines[0].startswith("#"):
        key, _, value = lines.pop(0)[1:].partition(":")
        headers[key] = value
    body = "\n".join(line for line in lines if line)
    rows = list(csv.reader(io.StringIO(body), delimiter="\t", quotechar='"'))
    return headers, rows


def content() -> Content:
    return load_content(locations.content_dir())


def test_headers_and_one_row_per_item(tmp_path: Path) -> None:
    target = tmp_path / "bank.txt"
    result = run_cli("export", "--anki", str(target), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    headers, rows = parse(target.read_text(encoding="utf-8"))
    assert tuple(headers) == HEADERS
    assert headers["separator"] == "tab" and headers["html"] == "true" and headers["notetype"] == "Basic"
    assert headers["deck"] == "studyapp::성능 분석"
    columns = headers["columns"].split("\t")
    assert columns == ["GUID", "Front", "Back", "Tags"]
    assert columns[int(headers["guid column"]) - 1] == "GUID"
    assert columns[int(headers["tags column"]) - 1] == "Tags"
    bank = content()
    assert summary["notes"] == len(rows) == len(bank.items)
    assert all(len(row) == 4 for row in rows)
    assert {row[0] for row in rows} == set(bank.items)  # the GUID is the item's id
    by_id = {row[0]: row for row in rows}
    item = next(iter(bank.items.values()))
    _guid, front, back, tags = by_id[item.id]
    assert html.escape(item.statement) in front and "O / X?" in front
    assert back.startswith(f"<b>{item.answer} — ")
    assert f"studyapp::topic::{item.topic}" in tags.split(" ")
    tagged = [row for row in rows if any(t.startswith("studyapp::checklist::") for t in row[3].split(" "))]
    assert tagged  # checklist items become tags too (studyapp::checklist::09-amdahl)
    assert all(" " not in t for row in rows for t in row[3].split(" "))


def test_the_guid_is_stable_across_exports_and_content_edits(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    assert run_cli("export", "--anki", str(first)).returncode == 0
    assert run_cli("export", "--anki", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()  # same bank, byte for byte
    bank = content()
    item = next(iter(bank.items.values()))
    edited = replace(bank, items={**bank.items, item.id: replace(item, explanation="고친 해설이다.")})
    before = {n.guid: n for n in notes(bank)}
    after = {n.guid: n for n in notes(edited)}
    assert before.keys() == after.keys()  # an edited item updates its note: same GUID
    assert after[item.id].back != before[item.id].back and after[item.id].front == before[item.id].front


def test_tabs_newlines_and_html_characters_are_escaped() -> None:
    bank = content()
    item = next(iter(bank.items.values()))
    nasty = replace(
        item,
        id="esc-001",
        statement='"인용"으로 시작\t탭 <b>굵게</b> & a < b > c',
        explanation="첫 줄\n둘째 줄\r\n셋째\t탭 'q' </td>",
    )
    text = render(notes(replace(bank, items={nasty.id: nasty})))
    _headers, rows = parse(text)
    (row,) = rows
    guid, front, back, _tags = row
    assert guid == "esc-001"
    assert "\t" not in front + back and "\n" not in front + back and "\r" not in front + back
    assert "&lt;b&gt;굵게&lt;/b&gt;" in front and "&amp; a &lt; b &gt; c" in front
    assert "&quot;인용&quot;" in front and "&#9;" in front
    assert "첫 줄<br>둘째 줄<br>셋째&#9;탭 &#x27;q&#x27; &lt;/td&gt;" in back
    # what Anki shows is the original text again
    shown = html.unescape(back.split("<br><br>", 1)[1].replace("<br>", "\n"))
    assert shown == "첫 줄\n둘째 줄\n셋째\t탭 'q' </td>"
    assert field_html("plain") == "plain"


def test_a_topic_and_a_deck_can_be_chosen(tmp_path: Path) -> None:
    bank = content()
    topic = next(t.id for t in bank.ordered_topics() if not t.parent)
    target = tmp_path / "one.txt"
    result = run_cli("export", "--anki", str(target), "--topic", topic, "--deck", "시험::성능\t분석")
    assert result.returncode == 0, result.stderr
    headers, rows = parse(target.read_text(encoding="utf-8"))
    assert headers["deck"] == "시험::성능 분석"  # a header stays one line, one field
    children = {t.id for t in bank.topics.values() if t.parent == topic} | {topic}
    assert rows and {bank.items[row[0]].topic for row in rows} <= children
    unknown = run_cli("export", "--anki", str(target), "--topic", "nope")
    assert unknown.returncode == 2 and "nope" in unknown.stderr
