"""WRONG on purpose (tests/exercises): pedantic with args= reuses one list, so rounds 2.. sort a sorted list.

정렬 두 구현의 벤치마크.

실행:  pytest test_sorting_bench.py
       pytest test_sorting_bench.py --benchmark-json=result.json   # 숫자를 JSON으로도 남긴다
"""

from __future__ import annotations

import random

import pytest
from sorting import insertion_sort, merge_sorted

SIZE = 300  # 정렬할 원소 수
ROUNDS = 20  # pedantic은 자동 calibration을 하지 않으니 round 수를 직접 정한다


def shuffled_numbers(seed: int = 0) -> list[int]:
    """매번 새로 만든, 섞인 리스트 (in-place 정렬에는 round마다 이런 새 입력이 필요하다)."""
    numbers = list(range(SIZE))
    random.Random(seed).shuffle(numbers)
    return numbers


def test_sorting_agrees() -> None:
    """단위 테스트: 두 구현의 결과가 같은가 (한 번 실행, 시간은 재지 않는다)."""
    numbers = shuffled_numbers()
    expected = sorted(numbers)
    assert merge_sorted(numbers) == expected
    insertion_sort(numbers)
    assert numbers == expected


@pytest.mark.benchmark(group="sort")
def test_merge_sorted(benchmark) -> None:
    numbers = shuffled_numbers()
    # merge_sorted는 입력을 바꾸지 않으니 같은 리스트로 여러 round를 재도 된다.
    result = benchmark(merge_sorted, numbers)
    assert result == sorted(numbers)


@pytest.mark.benchmark(group="sort")
def test_insertion_sort(benchmark) -> None:
    numbers = shuffled_numbers()
    # pedantic, but the same list every round: the first round sorts it in place
    benchmark.pedantic(insertion_sort, args=(numbers,), rounds=ROUNDS, iterations=1)
