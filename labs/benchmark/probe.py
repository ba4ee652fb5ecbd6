"""A tiny pytest plugin the lab loads (`-p labs.benchmark.probe`) into the suite's pytest run.

It writes, for every collected test, whether the test asks for the `benchmark` fixture. The
JSON of pytest-benchmark lists only benchmarks that recorded statistics, so without this a test
that takes the fixture but records nothing (skipped, or only `pytest.raises`) would look like a
plain unit test.
"""

from __future__ import annotations

import json
import os
from typing import Any

PROBE_ENV = "STUDYAPP_BENCH_PROBE"


def pytest_collection_finish(session: Any) -> None:
    path = os.environ.get(PROBE_ENV)
    if not path:
        return
    uses = {item.nodeid: "benchmark" in getattr(item, "fixturenames", ()) for item in session.items}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(uses, handle)
