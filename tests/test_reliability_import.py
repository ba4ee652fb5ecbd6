"""`studyapp progress --import-data / --export-data / --export` with hostile files and targets
(issue 9, review section 5): a file is refused whole in one line (exit 2) and the store stays as
it was, or it is merged and every later command still works. Export targets that cannot be
written are one line and leave no temp file behind.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from studyapp.progress.store import ProgressStore
from studyapp.progress.transfer import export_data, import_data, validate_export
from tests.conftest import FakeClock, InProcessCli


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    return lines[0]


def table_counts(home: Path) -> dict[str, int]:
    db = sqlite3.connect(f"{(home / 'progress.db').as_uri()}?mode=ro", uri=True)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            n: db.execute(f"SELECT count(*) FROM {n}").fetchone()[0] for n in names if n != "sqlite_sequence"
        }
    finally:
        db.close()


def fill_every_table(store: ProgressStore, clock: FakeClock) -> None:
    """One or more rows in each table an export carries, written the way the app writes them."""
    from studyapp.progress import exercise_store

    store.record_answer("pa-001", answer="O", correct=True)
    clock.advance(minutes=5)
    store.record_answer("pa-002", answer="X", correct=False, unsure=True, response_ms=1234)
    run = store.start_lab_run("amdahl", "/tmp/runs/amdahl")
    store.finish_lab_run(run, "ok", "speed-up 3.1x", {"speedup": 3.1})
    store.record_lab_answer("amdahl", "b", True)
    store.set_self_check("explain-amdahl", True)
    store.set_exam_date(clock.now.date().replace(year=clock.now.year + 1))
    exercise_store.record_check(store, "profiler-hotspot", "abc123", "passed", {"score": 1}, 0.5)
    exercise_store.reveal_next_hint(store, "profiler-hotspot", 3)
    with store.transaction() as db:
        db.execute(
            "INSERT INTO exam_attempts(uid, started_at, finished_at, settings_json, score, total, passed,"
            " time_used_s, questions_json) VALUES ('e1', ?, ?, '{}', 7, 10, 1, 61.5, '[]')",
            (clock.now.isoformat(), clock.now.isoformat()),
        )
        db.execute(
            "INSERT INTO explain_answers(uid, prompt_id, checklist_id, answer_text, covered_json,"
            " total_points, answered_at) VALUES ('x1', 'p1', 'c1', '설명', '[0, 2]', 3, ?)",
            (clock.now.isoformat(),),
        )


def test_export_carries_every_table_and_round_trips(tmp_path: Path, clock: FakeClock) -> None:
    source = ProgressStore(tmp_path / "a" / "progress.db", clock)
    fill_every_table(source, clock)
    data = export_data(source)
    for name in (
        "reviews",
        "lab_runs",
        "lab_answers",
        "self_checks",
        "exam_attempts",
        "explain_answers",
        "exercise_checks",
        "exercise_hints",
    ):
        assert data[name], name
    target = ProgressStore(tmp_path / "b" / "progress.db", clock)
    added = import_data(target, json.loads(json.dumps(data)))
    assert added == {name: len(data[name]) for name in added}
    again = export_data(target)
    for name in added:
        assert again[name] == data[name], name
    assert target.schedules() == source.schedules()
    assert import_data(target, data) == {name: 0 for name in added}  # a second import adds nothing


# Each bad variant: (what the review called it, how to spoil a good export).
def _set(table: str, column: str, value: Any) -> Any:
    def spoil(data: dict[str, Any]) -> None:
        data[table][0][column] = value

    return spoil


def _drop(table: str, column: str) -> Any:
    def spoil(data: dict[str, Any]) -> None:
        del data[table][0][column]

    return spoil


BAD_VARIANTS = {
    # 5.19 / 5.41 (reviewed_at in 9999, 2099): a well-formed time out of range is now one skipped
    # row, counted, not a refused file (issue 34): tests/test_reliability_files.py, clock minors.
    "5.21 response_ms 10**30": _set("reviews", "response_ms", 10**30),
    "5.23 item_id a list": _set("reviews", "item_id", ["a"]),
    "5.24 uid an object": _set("reviews", "uid", {"a": 1}),
    "5.26 answer null": _set("reviews", "answer", None),
    "5.27 kind a list": _set("reviews", "kind", ["ox"]),
    "rating 3.7": _set("reviews", "rating", 3.7),
    "correct 'yes'": _set("reviews", "correct", "yes"),
    "5.29 lab_runs row with only uid": lambda d: d["lab_runs"].__setitem__(0, {"uid": "only"}),
    "5.30 lab_runs started_at garbage": _set("lab_runs", "started_at", "soon"),
    "5.31 lab_runs result_json not JSON": _set("lab_runs", "result_json", "{not json"),
    "lab_runs result_json a list": _set("lab_runs", "result_json", "[1, 2]"),
    "lab_runs result_json depth bomb": _set("lab_runs", "result_json", "[" * 100_000 + "]" * 100_000),
    "5.32 self_checks checked_at garbage": _set("self_checks", "checked_at", "yesterday"),
    "5.34 lab_answers answered_at garbage": _set("lab_answers", "answered_at", "never"),
    "lab_answers lab missing": _drop("lab_answers", "lab"),
    "5.35 exam_date garbage": lambda d: d.__setitem__("exam_date", "next spring"),
    "exam_date year 9999": lambda d: d.__setitem__("exam_date", "9999-01-01"),
    "exam_attempts total a string": _set("exam_attempts", "total", "ten"),
    "exam_attempts time_used_s infinite": _set("exam_attempts", "time_used_s", float("inf")),
    "explain_answers covered_json not JSON": _set("explain_answers", "covered_json", "0,2"),
    "exercise_checks checked_at missing": _drop("exercise_checks", "checked_at"),
    "exercise_checks passed 2": _set("exercise_checks", "passed", 2),
    "exercise_hints revealed huge": _set("exercise_hints", "revealed", 2**70),
    "exercise_hints updated_at a number": _set("exercise_hints", "updated_at", 20270301),
    "5.59 no reviews key": lambda d: d.pop("reviews"),
    # issue 25 (review N5, L7 and the minor list): inside the JSON columns of an exam attempt
    "IMP.ea-pm-string": _set("exam_attempts", "settings_json", '{"pass_mark": "abc"}'),
    "IMP.ea-tl-string": _set("exam_attempts", "settings_json", '{"time_limit_s": "x"}'),
    "IMP.ea-tl-huge": _set("exam_attempts", "settings_json", '{"time_limit_s": 1e308}'),
    "IMP.ea-tl-inf": _set("exam_attempts", "settings_json", '{"time_limit_s": Infinity}'),
    "IMP.ea-pm-huge": _set("exam_attempts", "settings_json", '{"pass_mark": 1e9}'),
    "IMP.ea-settings-list": _set("exam_attempts", "settings_json", "[1, 2]"),
    "IMP.ea-itemids-int": _set("exam_attempts", "questions_json", '[{"item_ids": 5}]'),
    "IMP.ea-itemids-str": _set("exam_attempts", "questions_json", '[{"item_ids": "pa-001"}]'),
    "IMP.ea-q-notlist": _set("exam_attempts", "questions_json", '{"item_ids": []}'),
    "IMP.ea-stem-esc": _set("exam_attempts", "questions_json", '[{"stem": "\\u001b]0;PWNED\\u0007"}]'),
    "IMP.ea-options-text": _set("exam_attempts", "questions_json", '[{"options": [{"item_id": 1}]}]'),
    "IMP.ea-uid-esc": _set("exam_attempts", "uid", "\x1b[2J\x1b]0;pwn\x07"),
    "IMP.xh-neg": _set("exercise_hints", "revealed", -5),
    "schema true": lambda d: d.__setitem__("schema", True),
}


def test_every_bad_field_refuses_the_whole_file(tmp_path: Path, clock: FakeClock) -> None:
    """M6 / L7 / the import minor items: each of these used to be stored (and break `progress`,
    `quiz` or `lab list` for good), skipped silently, or end in an internal error."""
    source = ProgressStore(tmp_path / "a" / "progress.db", clock)
    fill_every_table(source, clock)
    good = json.loads(json.dumps(export_data(source)))
    target = ProgressStore(tmp_path / "b" / "progress.db", clock)
    target.record_answer("pa-003", answer="O", correct=True)
    before = export_data(target)
    for name, spoil in BAD_VARIANTS.items():
        data = copy.deepcopy(good)
        spoil(data)
        with pytest.raises(Exception) as raised:
            import_data(target, data)
        assert type(raised.value).__name__ in ("StudyappError", "StoreError"), (name, raised.value)
        assert "\n" not in str(raised.value), name
        assert export_data(target) == before, name


def test_validation_accepts_what_export_writes(clock: FakeClock, tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "progress.db", clock)
    fill_every_table(store, clock)
    validate_export(json.loads(json.dumps(export_data(store))), latest=clock.now)


@pytest.fixture
def learner_with_export(isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli) -> Path:
    """A data directory with a few answers, and a good export of another learner's progress."""
    other = tmp_path / "other"
    assert (
        studyapp_cli(
            "quiz",
            "--plain",
            "--mode",
            "cram",
            "--no-drills",
            "--kind",
            "ox",
            env={"STUDYAPP_HOME": str(other)},
            input_text="o\nx\no\nq\n",
        ).returncode
        == 0
    )
    export = tmp_path / "export.json"
    assert (
        studyapp_cli("progress", "--export-data", str(export), env={"STUDYAPP_HOME": str(other)}).returncode
        == 0
    )
    assert (
        studyapp_cli("quiz", "--plain", "--mode", "cram", "--no-drills", input_text="o\nq\n").returncode == 0
    )
    return export


def _spoiled(export: Path, target: Path, spoil: Any) -> Path:
    data = json.loads(export.read_text(encoding="utf-8"))
    spoil(data)
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


def test_bad_imports_through_the_cli_leave_every_command_working(
    learner_with_export: Path, isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """The review's repros: an exam date 'next spring', a lab run started 'soon', a missing
    `reviews` key, a depth bomb, /dev/zero. Each: one line, exit 2, the store unchanged, and
    `progress`, `quiz` and `lab list` work afterwards."""
    before = table_counts(isolated_home)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    files = [
        _spoiled(
            learner_with_export, tmp_path / "exam.json", lambda d: d.__setitem__("exam_date", "next spring")
        ),
        _spoiled(
            learner_with_export,
            tmp_path / "lab.json",
            lambda d: d.__setitem__(
                "lab_runs", [{"uid": "y", "lab": "amdahl", "started_at": "soon", "status": "ok"}]
            ),
        ),
        _spoiled(learner_with_export, tmp_path / "noreviews.json", lambda d: d.pop("reviews")),
        deep,
        Path("/dev/zero"),
    ]
    for path in files:
        result = studyapp_cli("progress", "--import-data", str(path))
        assert result.returncode == 2, (path, result.stderr)
        assert str(path) in one_line(result.stderr)
    assert table_counts(isolated_home) == before
    for command in (("progress", "--json"), ("lab", "list"), ("quiz", "--plain")):
        after = studyapp_cli(*command, input_text="q\n")
        assert after.returncode == 0, (command, after.stderr)
    merged = studyapp_cli("progress", "--import-data", str(learner_with_export))
    assert merged.returncode == 0, merged.stderr
    assert merged.stdout.startswith("imported: 3 answers")


def test_export_to_places_that_cannot_hold_it(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """L8 / cases 5.49–5.54: /proc, below a file, a directory — for both exports."""
    assert (
        studyapp_cli("quiz", "--plain", "--mode", "cram", "--no-drills", input_text="o\nq\n").returncode == 0
    )
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    folder = tmp_path / "folder"
    folder.mkdir()
    for option in ("--export-data", "--export"):
        for target in (Path("/proc/studyapp-export.json"), a_file / "out.json", folder):
            result = studyapp_cli("progress", option, str(target))
            assert result.returncode == 2, (option, target, result.stderr)
            assert "cannot write" in one_line(result.stderr)
    assert list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "folder", "studyapp-home"]
    assert a_file.read_text() == "x"
    fine = tmp_path / "fine.json"
    assert studyapp_cli("progress", "--export-data", str(fine)).returncode == 0
    assert json.loads(fine.read_text(encoding="utf-8"))["reviews"]
    assert studyapp_cli("progress", "--export-data", str(fine)).returncode == 0  # overwrite, atomically
    assert json.loads(fine.read_text(encoding="utf-8"))["reviews"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "fine.json", "folder", "studyapp-home"]


# -- issue 25, review N5: an import that says OK cannot break `--retry` later ------------------------


def _exam_with_misses(studyapp_cli: InProcessCli, home: Path) -> None:
    """A submitted 3-question exam with no answer given: three misses to retry."""
    result = studyapp_cli(
        "quiz",
        "--mode",
        "exam",
        "--plain",
        "--count",
        "3",
        "--kind",
        "ox",
        input_text="s\n",
        env={"STUDYAPP_HOME": str(home)},
    )
    assert result.returncode == 0, result.stderr
    assert (home / "progress.db").exists()


def test_an_attempt_with_wrong_types_inside_is_refused_on_import(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """The review's repro: pass_mark 'abc' in settings_json imported with exit 0, and every
    `--retry last` after it ended in an internal error."""
    source = tmp_path / "source"
    _exam_with_misses(studyapp_cli, source)
    export = tmp_path / "a.json"
    assert (
        studyapp_cli("progress", "--export-data", str(export), env={"STUDYAPP_HOME": str(source)}).returncode
        == 0
    )
    for spoil in (
        lambda s: s.__setitem__("pass_mark", "abc"),
        lambda s: s.__setitem__("time_limit_s", "x"),
    ):
        data = json.loads(export.read_text(encoding="utf-8"))
        attempt = data["exam_attempts"][0]
        settings = json.loads(attempt["settings_json"])
        spoil(settings)
        attempt["settings_json"], attempt["uid"] = json.dumps(settings), "e" * 32
        spoiled = tmp_path / "b.json"
        spoiled.write_text(json.dumps(data), encoding="utf-8")
        result = studyapp_cli("progress", "--import-data", str(spoiled))
        assert result.returncode == 2, result.stdout
        assert "exam_attempts[0].settings_json holds" in one_line(result.stderr)
    data = json.loads(export.read_text(encoding="utf-8"))
    questions = json.loads(data["exam_attempts"][0]["questions_json"])
    questions[0]["item_ids"] = 5
    data["exam_attempts"][0]["questions_json"] = json.dumps(questions)
    spoiled.write_text(json.dumps(data), encoding="utf-8")
    result = studyapp_cli("progress", "--import-data", str(spoiled))
    assert result.returncode == 2 and "question 1 has item_ids" in one_line(result.stderr)
    real = studyapp_cli("progress", "--import-data", str(export))  # the real one still imports
    assert real.returncode == 0
    retry = studyapp_cli("quiz", "--mode", "exam", "--plain", "--retry", "last", input_text="s\n")
    assert retry.returncode == 0, retry.stderr


@pytest.mark.parametrize(
    ("column", "value", "says"),
    [
        ("settings_json", '{"pass_mark": "abc"}', "its settings holds pass_mark 'abc'"),
        ("settings_json", '{"time_limit_s": "x"}', "its settings holds time_limit_s 'x'"),
        ("settings_json", '{"time_limit_s": 1e308}', "time_limit_s 1e+308"),
        ("questions_json", '[{"item_ids": 5, "correct": false}]', "question 1 has item_ids"),
    ],
    ids=["pass-mark-string", "time-limit-string", "time-limit-huge", "item-ids-number"],
)
def test_retry_refuses_a_damaged_attempt_in_one_line(
    isolated_home: Path, column: str, value: str, says: str, studyapp_cli: InProcessCli
) -> None:
    """An attempt damaged before imports checked it (or by hand): `--retry` says so, exit 2."""
    _exam_with_misses(studyapp_cli, isolated_home)
    db = sqlite3.connect(isolated_home / "progress.db")
    with db:
        db.execute(f"UPDATE exam_attempts SET {column} = ?", (value,))
    db.close()
    result = studyapp_cli("quiz", "--mode", "exam", "--plain", "--retry", "last", input_text="s\n")
    assert result.returncode == 2, result.stdout
    line = one_line(result.stderr)
    assert "cannot be retried" in line and says in line


def test_the_archive_keeps_the_exams_own_bounds() -> None:
    from studyapp.progress import exams
    from studyapp.quiz import exam

    assert exams.TIME_LIMIT_RANGE_S == (exam.MIN_TIME_LIMIT_S, exam.MAX_TIME_LIMIT_S)
    assert exams.MAX_QUESTIONS == exam.MAX_COUNT


def test_retry_of_an_empty_or_escaped_id_is_one_clean_line(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """EXAM.retry-empty (a fresh exam started instead) and EXAM.retry-esc (the id echoed raw)."""
    _exam_with_misses(studyapp_cli, isolated_home)
    for wanted in ("", "\x1b]0;PWN\x07\x1b[2J"):
        result = studyapp_cli("quiz", "--mode", "exam", "--plain", "--retry", wanted, input_text="s\n")
        assert result.returncode == 2, result.stdout
        line = one_line(result.stderr)
        assert "no mock exam attempt" in line and "\x1b" not in line


def test_a_negative_hint_count_already_stored_shows_the_first_hint(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """L7: an older studyapp imported `revealed: -5`; `exercise hint` then printed hints[-5] or crashed."""
    assert studyapp_cli("exercise", "start", "amdahl").returncode == 0
    db = sqlite3.connect(isolated_home / "progress.db")
    with db:
        db.execute(
            "INSERT OR REPLACE INTO exercise_hints(exercise_id, revealed, updated_at)"
            " VALUES ('amdahl', -5, '2026-12-01T00:00:00+00:00')"
        )
    db.close()
    result = studyapp_cli("exercise", "hint", "amdahl")
    assert result.returncode == 0, result.stderr
    assert "1/" in result.stdout.splitlines()[0]
