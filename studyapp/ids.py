"""Random ids for stored rows and sessions. A leaf: it imports nothing from studyapp.

`new_id()` gives 32 hex digits, the shape `uuid.uuid4().hex` had, so stored ids keep one form;
the uuid module is not imported because it brings `platform` with it, a few ms of every start.
"""

from __future__ import annotations

import os


def new_id() -> str:
    """128 random bits as 32 lowercase hex digits."""
    return os.urandom(16).hex()
