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
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

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
