"""Every file the app writes (issue 34; review 2026-12-second, H2 and its AK.* cases, the anki
and clock minors, PERM.modes, L2, L4, L5).

A whole-file write goes through a temp file and a rename, and only onto a new path or a regular
file (a symbolic link to one: its target is replaced, the link stays). `-` is stdout, a pipe
with a reader is streamed into, anything else (a device, a FIFO nobody reads, a folder, a link to
one or to nothing) is refused with one line and exit 2, and is left as it was.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from studyapp.progress.db import ProgressDB
from studyapp.progress.store import ProgressStore
from studyapp.progress.transfer import export_data
from tests.conftest import REPO, FakeClock, InProcessCli, run_cli

ESC = "\x1b]0;PWN\x07\x1b[2J"

# Both commands a learner writes a file with: the Anki deck and the progress export.
WRITERS = {
    "anki": ("export", "--anki"),
    "export-data": ("progress", "--export-data"),
}


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert "\x1b" not in stderr, stderr
    return lines[0]


def refused(studyapp_cli: InProcessCli, writer: str, target: Path | str, why: str) -> None:
    result = studyapp_cli(*WRITERS[writer], str(target))
    assert result.returncode == 2, (writer, target, result.stdout, result.stderr)
    line = one_line(result.stderr)
    assert f"cannot write {target}" in line and why in line, line
    assert result.stdout == ""


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".studyapp"))


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_dev_null_is_refused_and_stays_a_device(
    isolated_home: Path, studyapp_cli: InProcessCli, writer: str
) -> None:
    """AK.path-devnull-root / AK.path-devnode: as root the rename used to replace /dev/null."""
    refused(studyapp_cli, writer, "/dev/null", "it is a device")
    info = os.lstat("/dev/null")
    assert stat.S_ISCHR(info.st_mode) and os.major(info.st_rdev) == 1 and os.minor(info.st_rdev) == 3


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_a_device_node_twin_is_refused_and_kept(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """AK.path-devnode: a /dev/null twin in the learner's own folder (mknod c 1 3)."""
    node = tmp_path / "dev"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    for writer in WRITERS:
        refused(studyapp_cli, writer, node, "it is a device")
        assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_nobody_reads_is_refused_at_once(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli, writer: str
) -> None:
    """AK.path-fifo: the FIFO used to be replaced by a regular file (and must not hang either)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused(studyapp_cli, writer, fifo, "named pipe that nobody is reading")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_with_a_reader_gets_the_whole_file(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli, writer: str
) -> None:
    """A pipe cannot be renamed onto, so one somebody reads is streamed into; the confirmation
    goes to stderr. The deck (~340 KB) is larger than a pipe's buffer, so the reader drains it."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there before the writer
    os.set_blocking(reader_fd, True)
    received = bytearray()
    writer_done = threading.Event()

    def drain() -> None:
        while True:
            chunk = os.read(reader_fd, 1 << 16)
            if chunk:
                received.extend(chunk)
            elif writer_done.is_set():  # EOF after the writer closed (or before it opened: go on)
                return
            else:
                writer_done.wait(0.01)

    thread = threading.Thread(target=drain)
    thread.start()
    try:
        result = studyapp_cli(*WRITERS[writer], str(fifo))
    finally:
        writer_done.set()
        thread.join(30)
        os.close(reader_fd)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and str(fifo) in result.stderr
    text = received.decode("utf-8")
    if writer == "anki":
        assert text.startswith("#separator:tab\n") and text.count("\n") > 400
    else:
        assert json.loads(text)["format"] == "studyapp-progress"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_folders_and_links_to_them_or_to_nothing_are_refused(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli, writer: str
) -> None:
    """AK.path-dir, a symlink to a folder, a dangling symlink: one line, nothing made anywhere."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "to-folder").symlink_to(folder)
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing-here")
    refused(studyapp_cli, writer, folder, "folder")
    refused(studyapp_cli, writer, tmp_path / "to-folder", "folder")
    refused(studyapp_cli, writer, tmp_path / "dangling", "does not exist")
    assert list(folder.iterdir()) == []
    assert (tmp_path / "dangling").is_symlink() and not (tmp_path / "nothing-here").exists()
    assert (tmp_path / "to-folder").is_symlink()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_link_to_a_file_writes_the_file_and_keeps_the_link(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli, writer: str
) -> None:
    """AK.path-symlink: the target is replaced whole (atomically, beside itself), the link stays."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "target.txt"
    target.write_text("precious")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    result = studyapp_cli(*WRITERS[writer], str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and link.resolve() == target
    written = target.read_text(encoding="utf-8")
    assert written != "precious" and (
        written.startswith("#separator:tab") or json.loads(written)["reviews"] == []
    )
    assert leftovers(tmp_path) == [] and leftovers(elsewhere) == []


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_dash_is_standard_output(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli, writer: str
) -> None:
    """AK.path-dash: `-` is stdout (no file named '-'); the confirmation is on stderr."""
    result = studyapp_cli(*WRITERS[writer], "-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "-").exists()
    if writer == "anki":
        assert result.stdout.startswith("#separator:tab\n") and "Wrote the Anki file: -" in result.stderr
    else:
        assert json.loads(result.stdout)["format"] == "studyapp-progress"
        assert one_line(result.stderr) == "written: -"


def test_dev_stdout_streams_into_the_pipe_and_stays_a_link(isolated_home: Path) -> None:
    """AK.path-devstdout-root: /dev/stdout (here a pipe) gets the deck; the link is not replaced."""
    result = run_cli("export", "--anki", "/dev/stdout")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("#separator:tab\n") and result.stdout.count("\n") > 400
    assert "Wrote the Anki file: /dev/stdout" in result.stderr
    assert os.path.islink("/dev/stdout")


def test_process_substitution_gets_the_deck(isolated_home: Path, tmp_path: Path) -> None:
    """AK.path-procsubst: `--anki >(cat > deck.txt)` arrives as /dev/fd/N, a pipe: streamed."""
    deck = tmp_path / "deck.txt"
    script = f'"{sys.executable}" -m studyapp export --anki >(cat > "{deck}"); rc=$?; wait $!; exit $rc'
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Wrote the Anki file: /dev/fd/" in result.stderr
    assert deck.read_text(encoding="utf-8").startswith("#separator:tab\n")


def test_deck_names_with_control_characters_are_refused(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """AK.deck-esc: ESC/OSC in --deck never reaches the terminal or the `#deck:` header."""
    target = tmp_path / "deck.txt"
    for deck in (ESC, "a\x07b", "x\x9b2J"):
        result = studyapp_cli("export", "--anki", str(target), "--deck", deck)
        assert result.returncode == 2
        assert "--deck holds a control character (U+" in one_line(result.stderr)
        assert not target.exists()
    korean = studyapp_cli("--lang", "ko", "export", "--anki", str(target), "--deck", ESC)
    assert korean.returncode == 2 and "제어 문자(U+001B)" in one_line(korean.stderr)
    folded = studyapp_cli("export", "--anki", str(target), "--deck", "a\tb\nc")  # AK.deck-tabnl still works
    assert folded.returncode == 0
    assert "#deck:a b c\n" in target.read_text(encoding="utf-8")


# -- L4: files in a lab run's folder that are not files -----------------------------------------------


def test_a_fifo_as_an_imported_running_runs_lock_does_not_hang_lab_list(
    isolated_home: Path, tmp_path: Path, clock: FakeClock, studyapp_cli: InProcessCli
) -> None:
    """IX.labrun-lock-fifo: `lab list` opened ARTIFACT_DIR/.lab-run.lock and blocked on the FIFO
    there for ever. Now it is not a lock any studyapp holds: the run is marked interrupted."""
    artifacts = tmp_path / "a"
    artifacts.mkdir()
    os.mkfifo(artifacts / ".lab-run.lock")
    source = ProgressStore(tmp_path / "elsewhere" / "progress.db", clock)  # a day old: past the grace
    source.start_lab_run("amdahl", str(artifacts))
    exported = tmp_path / "in.json"
    exported.write_text(json.dumps(export_data(source)), encoding="utf-8")
    assert studyapp_cli("progress", "--import-data", str(exported)).returncode == 0
    result = run_cli("lab", "list")  # a real process: a hang is a TimeoutExpired, not a stuck suite
    assert result.returncode == 0, result.stderr
    statuses = ProgressStore(isolated_home / "progress.db").lab_runs()
    assert [run.status for run in statuses] == ["cancelled"]
    assert stat.S_ISFIFO(os.lstat(artifacts / ".lab-run.lock").st_mode)


def test_lab_out_with_a_fifo_for_its_stderr_log_is_one_line(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """`lab NAME --out DIR` opens DIR/lab-stderr.log for writing: a FIFO there used to block."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "lab-stderr.log")
    result = run_cli("lab", "amdahl", "--quick", "--out", str(out))
    assert result.returncode == 2
    assert "named pipe that nobody is reading" in one_line(result.stderr)
    assert stat.S_ISFIFO(os.lstat(out / "lab-stderr.log").st_mode)


# -- PERM.modes: the store and the data folder are the learner's alone -------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_new_data_folder_and_store_are_private(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERM.modes: the store was 0644 in a 0755 folder (exports were already 0600)."""
    monkeypatch.setenv("STUDYAPP_CACHE", str(tmp_path / "cache"))  # not inside the data folder, as by default
    old_umask = os.umask(0o022)  # the usual umask, whatever the test runner has
    try:
        result = studyapp_cli("quiz", "--plain", "--kind", "ox", "--count", "1", input_text="o\nq\n")
    finally:
        os.umask(old_umask)
    assert result.returncode == 0, result.stderr
    assert mode(isolated_home) == 0o700
    store_files = [p for p in isolated_home.iterdir() if p.name.startswith("progress.db")]
    assert store_files and {mode(p) for p in store_files} == {0o600}
    assert sqlite3.connect(isolated_home / "progress.db").execute(
        "SELECT count(*) FROM reviews"
    ).fetchone() == (1,)


def test_an_old_world_readable_store_is_tightened_on_open(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    assert studyapp_cli("progress").returncode == 0
    (isolated_home / "progress.db").chmod(0o644)
    isolated_home.chmod(0o755)  # a folder that exists is the owner's choice: left as it is
    assert studyapp_cli("progress", "--json").returncode == 0
    assert mode(isolated_home / "progress.db") == 0o600
    assert mode(isolated_home) == 0o755


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a file of another user")
def test_a_store_of_another_user_is_left_as_it_is_and_still_opens(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    assert studyapp_cli("progress").returncode == 0
    store = isolated_home / "progress.db"
    store.chmod(0o644)
    os.chown(store, 65534, 65534)
    assert studyapp_cli("progress", "--json").returncode == 0
    assert mode(store) == 0o644 and os.lstat(store).st_uid == 65534


# -- L5: a fresh store on a nearly full disk ------------------------------------------------------------


def test_a_fresh_store_that_fills_the_disk_says_disk_full_and_leaves_nothing(
    isolated_home: Path, studyapp_cli: InProcessCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EX.W5a, portably: SQLite fails creating the tables with SQLITE_FULL, having rolled the
    transaction back itself (what it does on a full disk). The app's own ROLLBACK then said
    "cannot rollback - no transaction is active" and a 4 KB progress.db stayed."""
    connect = ProgressDB._connect

    class FillsUp(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            if sql.lstrip().upper().startswith("CREATE TABLE"):
                super().execute("ROLLBACK")
                error = sqlite3.OperationalError("database or disk is full")
                error.sqlite_errorcode = 13  # type: ignore[attr-defined]  # SQLITE_FULL
                raise error
            return super().execute(sql, *args)

    def filling_connect(self: ProgressDB) -> sqlite3.Connection:
        connect(self).close()  # the file as SQLite leaves it: its first page written
        db = sqlite3.connect(self.path, isolation_level=None, factory=FillsUp, check_same_thread=False)
        db.execute("PRAGMA journal_mode = WAL")
        return db

    with monkeypatch.context() as patch:
        patch.setattr(ProgressDB, "_connect", filling_connect)
        for command in (("progress",), ("exercise", "start", "amdahl"), ("explain", "--list")):
            result = studyapp_cli(*command)
            assert result.returncode == 2
            line = one_line(result.stderr)
            assert "is full; free some space" in line and "rollback" not in line, line
            assert not any(p.name.startswith("progress.db") for p in isolated_home.iterdir())
    # space again: the store is made
    assert studyapp_cli("progress", "--json").returncode == 0
    assert (isolated_home / "progress.db").stat().st_size > 4096


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_fresh_store_on_a_real_nearly_full_tmpfs(tmp_path: Path) -> None:
    """EX.W5a as reported: a 1 MB tmpfs with ~100 KB free, every command, then space freed."""
    disk = tmp_path / "m"
    disk.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True
    ).returncode:
        pytest.skip("no tmpfs mount here")
    try:
        filler = disk / "fill"
        filler.write_bytes(b"\0" * (924 << 10))
        home = disk / "h"
        env = {"STUDYAPP_HOME": str(home), "STUDYAPP_LANG": "en", "STUDYAPP_CACHE": str(tmp_path / "cache")}
        for command in (("progress",), ("explain", "--list")):
            result = run_cli(*command, env=env)
            assert result.returncode == 2
            assert "is full; free some space" in one_line(result.stderr)
            assert not any(p.name.startswith("progress.db") for p in home.iterdir())
        filler.unlink()
        assert run_cli("progress", env=env).returncode == 0
    finally:
        subprocess.run(["umount", str(disk)], check=True)


# -- L2 and the clock minors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["0001-01-01", "0001-01-02T09:00", "9999-12-31T23:59:59", "9998-06-01T09:00", "1999-12-31T23:00"]
)
def test_studyapp_now_outside_the_supported_years_is_one_line(
    isolated_home: Path, studyapp_cli: InProcessCli, value: str
) -> None:
    """NOW.year1, NOW.year9999 (and NOW.answer-0001/-9999/-9998/-1999, whose clocks can no longer
    be set): `progress --json` ended in an internal ValueError/OverflowError."""
    for command in (("progress", "--json"), ("quiz", "--plain", "--count", "1")):
        result = studyapp_cli(*command, env={"STUDYAPP_NOW": value}, input_text="o\nq\n")
        assert result.returncode == 2
        assert one_line(result.stderr) == (
            f"studyapp: STUDYAPP_NOW={value!r} is outside the years studyapp supports (2000–2200)"
        )
    assert not (isolated_home / "progress.db").exists()  # refused before anything was written
    korean = studyapp_cli("--lang", "ko", "progress", env={"STUDYAPP_NOW": value})
    assert korean.returncode == 2 and "다루는 연도(2000–2200) 밖" in one_line(korean.stderr)


def test_the_ends_of_the_supported_years_work(isolated_home: Path, studyapp_cli: InProcessCli) -> None:
    for value in ("2000-01-01T00:00", "2200-12-31T12:00"):
        answered = studyapp_cli(
            "quiz",
            "--plain",
            "--kind",
            "ox",
            "--count",
            "1",
            env={"STUDYAPP_NOW": value},
            input_text="o\nq\n",
        )
        assert answered.returncode == 0, answered.stderr
        report = studyapp_cli("progress", "--json", env={"STUDYAPP_NOW": value})
        assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["reviews_total"] == 2


def test_answers_saved_under_a_wrong_clock_do_not_spoil_the_learners_own_export(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """NOW.answer-1990/-1999/-2100, NOW.backwards-export: answers stored while the clock read
    before 2000 or later than now made the learner's own --export-data file unimportable whole.
    Now such rows are left out and counted; everything else comes in."""
    laptop = tmp_path / "laptop"
    for moment in (
        datetime(1990, 1, 1, 9, tzinfo=timezone.utc),
        datetime(2150, 1, 1, 9, tzinfo=timezone.utc),
    ):
        ProgressStore(laptop / "progress.db", FakeClock(moment)).record_answer(
            "pa-001", answer="O", correct=True
        )
    answered = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "ox",
        "--count",
        "1",
        env={"STUDYAPP_HOME": str(laptop)},
        input_text="o\nq\n",
    )
    assert answered.returncode == 0, answered.stderr
    run = ProgressStore(laptop / "progress.db", FakeClock(datetime(2120, 5, 1, tzinfo=timezone.utc)))
    run.start_lab_run("amdahl", None)  # another table, the same rule
    backup = tmp_path / "backup.json"
    exported = studyapp_cli("progress", "--export-data", str(backup), env={"STUDYAPP_HOME": str(laptop)})
    assert exported.returncode == 0, exported.stderr
    assert len(json.loads(backup.read_text(encoding="utf-8"))["reviews"]) == 3  # the export keeps them all

    imported = studyapp_cli("progress", "--import-data", str(backup))
    assert imported.returncode == 0, imported.stderr
    lines = imported.stdout.splitlines()
    assert lines[0].startswith("imported: 1 answers, 0 lab runs")
    assert lines[1].startswith("left out: 3 records dated before 2000 or in the future")
    assert studyapp_cli("progress", "--json").returncode == 0
    again = studyapp_cli("progress", "--import-data", str(backup))  # idempotent, still says so
    assert (
        again.returncode == 0
        and again.stdout.startswith("imported: 0 answers")
        and "left out: 3" in again.stdout
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a link owned by another user")
def test_another_users_link_is_not_followed(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """A link another user planted (in /tmp, where unsaved answers may go) could aim a write at
    any of our files: only our own links are written through."""
    ours = tmp_path / "bashrc"
    ours.write_text("precious")
    planted = tmp_path / "deck.txt"
    planted.symlink_to(ours)
    os.lchown(planted, 65534, 65534)
    for writer in WRITERS:
        refused(studyapp_cli, writer, planted, "another user")
    assert ours.read_text() == "precious" and planted.is_symlink()


def test_exercise_start_does_not_write_through_a_dangling_link(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """`exercise start` copies the starter files: a link to nothing at one of their names used to
    be written through (the file made wherever it pointed)."""
    assert studyapp_cli("exercise", "start", "amdahl").returncode == 0
    workspace = isolated_home / "exercises" / "amdahl"
    starter = sorted(p for p in workspace.rglob("*") if p.is_file())[0]
    starter.unlink()
    elsewhere = tmp_path / "elsewhere.py"
    starter.symlink_to(elsewhere)
    result = studyapp_cli("exercise", "start", "amdahl")
    assert result.returncode == 2
    assert "does not exist" in one_line(result.stderr)
    assert not elsewhere.exists() and starter.is_symlink()


# -- lab artifacts -------------------------------------------------------------------------------------


def test_a_lab_does_not_write_into_a_fifo_in_its_out_folder(isolated_home: Path, tmp_path: Path) -> None:
    """A lab wrote its artifacts with open("w"): a FIFO at amdahl.csv in `--out` blocked the lab
    until its time limit. Labs now write through `labs._protocol.write_artifact`."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "amdahl.csv")
    result = run_cli("lab", "amdahl", "--quick", "--out", str(out))
    assert result.returncode == 2, result.stderr
    assert "amdahl.csv: 파일이 아닌 것" in one_line(result.stderr)
    assert stat.S_ISFIFO(os.lstat(out / "amdahl.csv").st_mode)
    assert not [p.name for p in out.iterdir() if p.name.startswith(".amdahl.csv")]


def test_write_artifact_replaces_a_file_whole_and_refuses_links_and_folders(tmp_path: Path) -> None:
    from labs._protocol import LabUsageError, csv_text, write_artifact

    old = tmp_path / "table.csv"
    old.write_text("old")
    assert write_artifact(old, csv_text([["a", "b"], [1, 2]])) == str(old.resolve())
    assert old.read_bytes() == b"a,b\r\n1,2\r\n"  # the csv dialect's line ends, untranslated
    (tmp_path / "link.json").symlink_to(old)
    (tmp_path / "folder.json").mkdir()
    for name in ("link.json", "folder.json"):
        with pytest.raises(LabUsageError):
            write_artifact(tmp_path / name, "{}")
    assert old.read_bytes() == b"a,b\r\n1,2\r\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.json", "link.json", "table.csv"]


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/null"])
def test_a_store_path_that_is_not_a_file_is_one_line_and_stays(
    isolated_home: Path, studyapp_cli: InProcessCli, kind: str
) -> None:
    """progress.db as a FIFO or a link to a device: SQLite said "disk I/O error"; it is named now,
    and the thing is left where it is (a fresh store that fails is removed, never one of these)."""
    isolated_home.mkdir()
    store = isolated_home / "progress.db"
    if kind == "fifo":
        os.mkfifo(store)
    else:
        store.symlink_to("/dev/null")
    result = studyapp_cli("progress")
    assert result.returncode == 2
    assert (
        one_line(result.stderr)
        == f"studyapp: cannot use {store}: it is not a regular file; the file was left untouched"
    )
    assert os.path.lexists(store) and (stat.S_ISFIFO(os.lstat(store).st_mode) or store.is_symlink())
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
