"""What differs on Python 3.10 (requires-python >= 3.10; the hosted matrix runs 3.10 and 3.13):
sqlite3's errors carry no `sqlite_errorcode` there, so a damaged or locked store is recognised by
SQLite's own message. Found by running the suite under Python 3.10.13: a corrupt progress file
was refused instead of announced and moved aside (tests/test_cli.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from studyapp.progress.db import sqlite_code


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (sqlite3.DatabaseError("file is not a database"), 26),
        (sqlite3.DatabaseError("database disk image is malformed"), 11),
        (sqlite3.OperationalError("database is locked"), 5),
        (sqlite3.OperationalError("attempt to write a readonly database"), 8),
        (sqlite3.OperationalError("database or disk is full"), 13),
        (sqlite3.OperationalError("no such table: answers"), 0),  # not a file problem
        (OSError("file is not a database"), 0),  # only sqlite3's own errors are read
    ],
)
def test_an_error_without_its_code_is_read_by_its_message(error: BaseException, code: int) -> None:
    assert not hasattr(error, "sqlite_errorcode")  # as every sqlite3 error is on Python 3.10
    assert sqlite_code(error) == code


def test_the_code_sqlite_gives_wins_where_there_is_one(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"not a database at all" * 300)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        sqlite3.connect(damaged).execute("select * from sqlite_master").fetchall()
    assert sqlite_code(raised.value) == 26  # SQLITE_NOTADB, on every Python
