"""기준(control) 벤치마크: 코드가 바뀌어도 절대 바뀌지 않는 고정 작업.

저장된 실행과 비교할 때 이 벤치마크도 느려졌다면, 코드가 아니라 **기계 전체**가 느려진 것이다
(다른 프로그램, CPU 주파수, 가상 머신 이웃). lab은 이 비율(machine drift)로 다른 벤치마크의
비율을 나눈 뒤 판정한다. 실험실에서 대조군(control group)을 두는 것과 같은 생각이다.
"""

from __future__ import annotations

import pytest


def fixed_work() -> int:
    """정수 덧셈과 곱셈만 하는 순수 Python 루프 (메모리 할당이 거의 없어 흔들림이 작다)."""
    total = 0
    for i in range(20_000):
        total += i * i % 7
    return total


@pytest.mark.benchmark(group="control")
def test_control_fixed_work(benchmark):
    assert benchmark(fixed_work) == fixed_work()
