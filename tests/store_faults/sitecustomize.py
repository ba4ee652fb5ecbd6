"""Test-only fault injection for the progress store: put this folder first on PYTHONPATH.

While the file named by $STUDYAPP_FAULT_FULL exists, every SQLite statement that writes fails the
way SQLite reports a full disk (SQLITE_FULL, "database or disk is full"); remove the file and the
disk "has space" again. Used where a real small tmpfs cannot be mounted (not root, no
CAP_SYS_ADMIN). Nothing else is changed: the real sqlite3 module and the real file do the rest.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

_FLAG = os.environ.get("STUDYAPP_FAULT_FULL")
_WRITES = ("INSERT", "UPDATE", "DELETE", "COMMIT", "REPLACE")

if _FLAG:

    class _FullDiskConnection(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            if os.path.exists(_FLAG) and sql.lstrip().upper().startswith(_WRITES):
                error = sqlite3.OperationalError("database or disk is full")
                error.sqlite_errorcode = 13  # SQLITE_FULL
                error.sqlite_errorname = "SQLITE_FULL"
                raise error
            return super().execute(sql, *args)

    _real_connect = sqlite3.connect

    def _connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", _FullDiskConnection)
        return _real_connect(*args, **kwargs)

    sqlite3.connect = _connect  # type: ignore[assignment]
