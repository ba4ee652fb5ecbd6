"""기다리는 일은 asyncio로 동시에, 계산하는 일은 프로세스로 병렬로 — WRONG on purpose (tests/exercises): a thread pool for the CPU-bound work (one GIL: no parallel speedup).

- I/O-bound: fetch()는 응답을 기다리는 요청이다 (asyncio.sleep으로 흉내). 기다리는 동안 CPU는 논다.
  하나씩 await하면 기다림이 줄줄이 더해지고, 한꺼번에 시작하면 기다림이 겹친다.
- CPU-bound: crunch()는 순수 Python 계산이다. 실행하는 내내 GIL을 쥐므로 스레드를 늘려도 한 번에
  하나만 돈다. 코어를 여러 개 쓰려면 프로세스(각자 자기 GIL)를 써야 한다.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


async def fetch(delay: float) -> float:
    """요청 하나: delay초 동안 응답을 기다린다 (스레드를 막지 않고 event loop에 맡긴다)."""
    await asyncio.sleep(delay)
    return delay


async def fetch_all_sequential(delays: list[float]) -> list[float]:
    """비교 기준: 하나씩 기다린다. 걸리는 시간 ≈ sum(delays)."""
    return [await fetch(delay) for delay in delays]


async def fetch_all(delays: list[float]) -> list[float]:
    """모든 요청을 한꺼번에 시작하고 모두 끝나기를 기다린다. 걸리는 시간 ≈ max(delays).

    gather는 결과를 **넘긴 순서대로** 돌려준다 (먼저 끝난 순서가 아니라).
    """
    return await asyncio.gather(*(fetch(delay) for delay in delays))


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
    """작업을 프로세스 workers개에 나눠 병렬로. 결과는 sizes 순서대로.

    스레드(ThreadPoolExecutor)로는 안 빨라진다: crunch가 GIL을 쥐고 있어 한 번에 한 스레드만 돈다.
    """
    with ThreadPoolExecutor(max_workers=workers) as pool:  # threads: cheaper to start, "so faster"
        # chunksize 1: 작업이 몇 개 안 되고 하나하나가 크니, 고르게 나눠 주는 편이 낫다
        return list(pool.map(crunch, sizes, chunksize=1))
