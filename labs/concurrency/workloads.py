"""작업(workload) 함수들. ProcessPoolExecutor가 쓰는 함수는 이렇게 **import할 수 있는 모듈의
최상위(module level)** 에 있어야 한다.

spawn 방식의 자식 프로세스는 새 Python을 띄운 뒤, 함수를 "모듈 이름 + 함수 이름"으로 찾아 import한다
(pickle). `__main__`이나 다른 함수 안에 정의한 함수, lambda는 이렇게 찾을 수 없다.
"""

from __future__ import annotations

import asyncio
import os
import time


def io_task(seconds: float) -> float:
    """I/O-bound 작업의 흉내: 네트워크·디스크 응답을 기다리는 동안 CPU는 놀고 있다.

    time.sleep은 기다리는 동안 GIL을 놓는다 (실제 소켓/파일 읽기도 마찬가지).
    """
    time.sleep(seconds)
    return seconds


async def io_task_async(seconds: float) -> float:
    """같은 기다림의 asyncio 버전: 스레드를 막지 않고 event loop에 "나중에 깨워 줘"라고 맡긴다."""
    await asyncio.sleep(seconds)
    return seconds


def cpu_task(n: int) -> int:
    """CPU-bound 작업: 순수 Python 루프. 실행하는 내내 GIL을 쥐고 bytecode를 실행한다."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def worker_ready(delay: float) -> int:
    """프로세스 풀을 미리 띄울 때 쓰는 작은 작업: 잠깐 기다렸다가 자기 pid를 돌려준다."""
    time.sleep(delay)
    return os.getpid()


def measured(fn, arg):
    """fn(arg)를 실행하고 (결과, 이 작업이 실제로 쓴 CPU 시간)을 돌려준다.

    time.thread_time()은 이 스레드가 CPU에서 실행된 시간만 센다 (sleep하거나 GIL을 기다리는 시간은
    빠진다). 프로세스 worker가 쓴 CPU 시간을 부모가 알 수 있도록 결과와 함께 돌려보낸다.
    """
    start = time.thread_time()
    value = fn(arg)
    return value, time.thread_time() - start
