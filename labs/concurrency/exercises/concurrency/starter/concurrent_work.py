"""기다리는 일은 asyncio로 동시에, 계산하는 일은 프로세스로 병렬로 — TODO를 채우세요.

- I/O-bound: fetch()는 응답을 기다리는 요청이다 (asyncio.sleep으로 흉내). 기다리는 동안 CPU는 논다.
  하나씩 await하면 기다림이 줄줄이 더해지고, 한꺼번에 시작하면 기다림이 겹친다.
- CPU-bound: crunch()는 순수 Python 계산이다. 실행하는 내내 GIL을 쥐므로 스레드를 늘려도 한 번에
  하나만 돈다. 코어를 여러 개 쓰려면 프로세스(각자 자기 GIL)를 써야 한다.

할 일: fetch_all과 crunch_all의 TODO. 지금은 둘 다 순서대로(sequential) 돌아서 맞지만 느리다.
검사: studyapp exercise check concurrency (속도 향상을 이 기계에서 잰다, README.md의 잡음 규칙)
"""

from __future__ import annotations

import asyncio


async def fetch(delay: float) -> float:
    """요청 하나: delay초 동안 응답을 기다린다 (스레드를 막지 않고 event loop에 맡긴다)."""
    await asyncio.sleep(delay)
    return delay


async def fetch_all_sequential(delays: list[float]) -> list[float]:
    """비교 기준: 하나씩 기다린다. 걸리는 시간 ≈ sum(delays)."""
    return [await fetch(delay) for delay in delays]


async def fetch_all(delays: list[float]) -> list[float]:
    """모든 요청을 **동시에** 기다린다. 결과는 delays 순서대로."""
    # TODO: 지금은 하나씩 await한다 (sequential과 같다). 코루틴을 모두 만든 뒤 한 번에 기다리세요:
    #       asyncio.gather(*코루틴들)은 결과를 넘긴 순서대로 돌려줍니다.
    #       time.sleep이나 스레드는 필요 없습니다: fetch는 이미 event loop에 기다림을 맡깁니다.
    results = []
    for delay in delays:
        results.append(await fetch(delay))
    return results


def crunch(n: int) -> int:
    """CPU-bound 작업: 순수 Python 루프. 프로세스 풀이 부를 수 있게 모듈 최상위에 둔다 (pickle)."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def crunch_all_sequential(sizes: list[int]) -> list[int]:
    """비교 기준: 한 프로세스에서 차례로."""
    return [crunch(n) for n in sizes]


def crunch_all(sizes: list[int], workers: int) -> list[int]:
    """작업을 workers개에 나눠 **병렬로**. 결과는 sizes 순서대로."""
    # TODO: concurrent.futures.ProcessPoolExecutor(max_workers=workers)로 crunch를 나눠 실행하세요.
    #       pool.map(crunch, sizes)는 순서를 지킵니다. with 블록으로 풀을 닫아야 프로세스가 정리됩니다.
    #       ThreadPoolExecutor는 왜 안 될까요? crunch는 실행 내내 GIL을 쥡니다.
    return [crunch(n) for n in sizes]
