"""동시성 모델(async I/O, threads, processes) 비교 lab: `python -m labs.concurrency --quick`."""
