"""스레드와 queue로 만든 3단계 파이프라인: 병목을 찾고 덜어 주기 — TODO를 채우세요.

    items ──> [load] ──q──> [transform] ──q──> [save] ──> outputs

단계마다 스레드 workers[i]개가 "input queue에서 꺼내기 → work(item) → 다음 queue에 넣기"를 되풀이한다.
정상 상태에서 처리량은 가장 느린 단계가 정한다:

    처리량 = 1 / max_i (단계 i의 item당 시간 / workers[i])

work는 time.sleep처럼 기다리는 일(디스크, 네트워크, 가속기)이라 GIL을 놓는다. 그래서 느린 단계에
스레드를 더 주면 그 단계가 정말로 여러 item을 동시에 처리한다.

지금 run_pipeline은 workers를 무시하고 단계마다 스레드 **하나**만 띄운다. 할 일:
1. run_pipeline: 단계 i가 스레드 workers[i]개로 돌게 한다 (끝 표시 _DONE을 어떻게 나눠 줄지가 핵심).
2. bottleneck(report): 측정한 busy 시간으로 가장 느린 단계를 찾는다.
3. relieve(report, threads): 스레드 threads개를 어느 단계에 몇 개씩 줄지 정해 병목을 덜어 준다.
검사: studyapp exercise check pipeline
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
    # TODO(1): 첫 단계의 스레드가 workers[0]개라면 끝 표시도 workers[0]개 필요합니다.
    source.put(_DONE)
    # 단계 사이 queue는 크기를 제한한다: 빠른 단계가 느린 단계 앞에 item을 끝없이 쌓지 못하게
    queues = [source] + [queue.Queue(maxsize=queue_size) for _ in range(count - 1)]
    busy = {stage.name: 0.0 for stage in stages}
    outputs: list[Any] = []

    def worker(index: int) -> None:
        stage = stages[index]
        inbox = queues[index]
        outbox = queues[index + 1] if index + 1 < count else None
        while True:
            item = inbox.get()
            if item is _DONE:
                break
            started = time.perf_counter()
            result = stage.work(item)
            # TODO(1): 스레드 여러 개가 이 줄을 동시에 실행하면 더한 값을 잃을 수 있습니다
            #          (읽기-더하기-쓰기 사이에 다른 스레드가 끼어든다). 스레드마다 따로 더하고
            #          끝에 lock을 잡고 한 번만 합치세요.
            busy[stage.name] += time.perf_counter() - started
            if outbox is None:
                outputs.append(result)  # list.append는 CPython에서 원자적이다
            else:
                outbox.put(result)
        # TODO(1): 스레드가 여럿이면 **이 단계의 마지막 스레드**가 끝날 때만 다음 단계에 끝을
        #          알려야 합니다 (먼저 끝난 스레드가 알리면, 아직 일하는 스레드가 보낼 item보다
        #          끝 표시가 먼저 도착합니다). 그리고 다음 단계의 스레드 수만큼 _DONE을 넣으세요.
        #          끝난 스레드 수를 lock으로 보호한 카운터로 세면 됩니다.
        if outbox is not None:
            outbox.put(_DONE)

    # TODO(1): 단계마다 스레드 workers[index]개를 띄우세요. 지금은 하나씩입니다.
    threads = [
        threading.Thread(target=worker, args=(index,), name=stage.name, daemon=True)
        for index, stage in enumerate(stages)
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
    """가장 느린 단계의 이름."""
    # TODO(2): report.busy_s는 단계마다 work() 안에서 보낸 시간의 합(그 단계 스레드 모두)입니다.
    #          스레드가 여럿인 단계는 그만큼 나눠서 일합니다: 무엇으로 나눠 비교해야 할까요?
    raise NotImplementedError("TODO: bottleneck(report)")


def relieve(report: Report, threads: int) -> list[int]:
    """스레드 threads개(단계마다 적어도 1개)를 단계 순서대로 나눈 목록. 처리량이 가장 크게."""
    # TODO(3): item당 시간 = busy_s / items. 처리량 = 1 / max(item당 시간 / workers).
    #          모두 1개로 시작해서, 남은 스레드를 하나씩 **그때의 병목**에 주면 됩니다.
    #          병목이 아닌 단계에 주면? 그 단계가 더 오래 기다릴 뿐, 처리량은 그대로입니다.
    raise NotImplementedError("TODO: relieve(report, threads)")
