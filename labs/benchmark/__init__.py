"""pytest-benchmark 실습 lab: `python -m labs.benchmark --quick`."""
