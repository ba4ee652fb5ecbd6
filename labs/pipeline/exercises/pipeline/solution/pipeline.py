"""스레드와 queue로 만든 3단계 파이프라인: 병목을 찾고 덜어 주기 — 참고 답안.

    items ──> [load] ──q──> [transform] ──q──> [save] ──> outputs

단계마다 스레드 workers[i]개가 "input queue에서 꺼내기 → work(item) → 다음 queue에 넣기"를 되풀이한다.
정상 상태에서 처리량은 가장 느린 단계가 정한다:

    처리량 = 1 / max_i (단계 i의 item당 시간 / workers[i])

work는 time.sleep처럼 기다리는 일(디스크, 네트워크, 가속기)이라 GIL을 놓는다. 그래서 느린 단계에
스레드를 더 주면 그 단계가 정말로 여러 item을 동시에 처리한다.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_DONE = object()  # "더 이상 item이 없다"는 표시. 스레드마다 하나씩 받아야 그 스레드가 끝난다


@dataclass
class Stage:
    name: str
    work: Callable[[Any], Any]  # item 하나를 처리해 다음 단계로 보낼 값을 돌려준다


@dataclass
class Report:
    wall_s: float  # 파이프라인 전체가 걸린 시간
    items: int  # 처리한 item 수
    workers: dict[str, int]  # 단계 이름 -> 스레드 수
    busy_s: dict[str, float]  # 단계 이름 -> work() 안에서 보낸 시간 (그 단계 스레드 모두의 합)
    outputs: list[Any] = field(default_factory=list)  # 마지막 단계가 돌려준 값 (끝난 순서대로)


def run_pipeline(stages: list[Stage], items: list[Any], workers: list[int], queue_size: int = 4) -> Report:
    """items를 단계들에 차례로 통과시킨다. 단계 i는 스레드 workers[i]개로 돈다."""
    if len(workers) != len(stages) or min(workers) < 1:
        raise ValueError(f"단계마다 1개 이상의 worker가 필요합니다: {workers}")
    count = len(stages)
    source: queue.Queue[Any] = queue.Queue()
    for item in items:
        source.put(item)
    for _ in range(workers[0]):  # 첫 단계의 스레드마다 끝 표시 하나
        source.put(_DONE)
    # 단계 사이 queue는 크기를 제한한다: 빠른 단계가 느린 단계 앞에 item을 끝없이 쌓지 못하게
    queues = [source] + [queue.Queue(maxsize=queue_size) for _ in range(count - 1)]
    busy = {stage.name: 0.0 for stage in stages}
    outputs: list[Any] = []
    finished = [0] * count  # 단계마다 끝난 스레드 수
    lock = threading.Lock()

    def worker(index: int) -> None:
        stage = stages[index]
        inbox = queues[index]
        outbox = queues[index + 1] if index + 1 < count else None
        my_busy = 0.0  # 스레드마다 따로 더하고 끝에 한 번만 합친다 (공유 변수 += 는 경쟁 조건)
        while True:
            item = inbox.get()
            if item is _DONE:
                break
            started = time.perf_counter()
            result = stage.work(item)
            my_busy += time.perf_counter() - started
            if outbox is None:
                outputs.append(result)  # list.append는 CPython에서 원자적이다
            else:
                outbox.put(result)
        with lock:
            busy[stage.name] += my_busy
            finished[index] += 1
            last = finished[index] == workers[index]
        # 이 단계의 **마지막** 스레드가 끝났을 때만 다음 단계에 끝을 알린다: 그 전에 알리면 아직 일하는
        # 스레드가 보낼 item보다 끝 표시가 먼저 도착할 수 있다. 다음 단계 스레드마다 하나씩.
        if last and outbox is not None:
            for _ in range(workers[index + 1]):
                outbox.put(_DONE)

    threads = [
        threading.Thread(target=worker, args=(index,), name=f"{stage.name}-{n}", daemon=True)
        for index, stage in enumerate(stages)
        for n in range(workers[index])
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    names = [stage.name for stage in stages]
    return Report(wall, len(outputs), dict(zip(names, workers, strict=True)), busy, outputs)


def bottleneck(report: Report) -> str:
    """가장 느린 단계의 이름: item당 시간을 그 단계의 스레드 수로 나눈 값이 가장 큰 단계."""
    # busy_s / workers = 그 단계가 item 하나를 내보내는 데 걸리는 (병렬로 나눈) 시간 × items
    return max(report.busy_s, key=lambda name: report.busy_s[name] / report.workers[name])


def relieve(report: Report, threads: int) -> list[int]:
    """스레드 threads개를 단계들에 나눠 처리량이 가장 크게: 매번 지금의 병목에 하나씩 더 준다."""
    per_item = {name: busy / max(report.items, 1) for name, busy in report.busy_s.items()}
    workers = dict.fromkeys(per_item, 1)
    for _ in range(threads - len(workers)):
        slowest = max(per_item, key=lambda name: per_item[name] / workers[name])
        workers[slowest] += 1  # 병목이 아닌 단계에 주면 그 단계가 더 오래 기다릴 뿐이다
    return [workers[name] for name in report.busy_s]
