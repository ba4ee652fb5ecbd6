"""정렬 두 구현의 벤치마크 — TODO를 채우세요.

실행:  pytest test_sorting_bench.py
       pytest test_sorting_bench.py --benchmark-json=result.json   # 숫자를 JSON으로도 남긴다
검사:  studyapp exercise check pytest-benchmark

해야 할 일 (README.md에 자세히):
1. 두 구현을 모두 `benchmark` fixture로 잰다.
2. 두 벤치마크를 **같은 group**에 넣어 한 표에서 비교되게 한다.
3. insertion_sort는 입력을 그 자리에서 바꾸므로 **pedantic 모드 + setup**으로,
   round마다 새로 섞인 리스트를 받게 한다 (round는 5번 이상).
"""

from __future__ import annotations

import random

import pytest
from sorting import insertion_sort, merge_sorted

SIZE = 300  # 정렬할 원소 수


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


# TODO(1, 2): 이 테스트에 group을 붙이세요: @pytest.mark.benchmark(group="...")
def test_merge_sorted(benchmark) -> None:
    numbers = shuffled_numbers()
    # TODO(1): benchmark(함수, 인자...)로 merge_sorted(numbers)를 재세요.
    #          benchmark(...)는 함수의 반환값을 돌려주므로 결과도 assert할 수 있습니다.
    result = merge_sorted(numbers)  # ← 지금은 한 번 부를 뿐, 아무것도 재지 않는다
    assert result == sorted(numbers)


# TODO(2): 위와 같은 group을 붙이세요.
def test_insertion_sort(benchmark) -> None:
    # TODO(3): benchmark.pedantic(insertion_sort, setup=..., rounds=...)로 재세요.
    #   - setup은 인자 없이 불리는 함수이고 (args, kwargs)를 돌려줍니다: 예) ((shuffled_numbers(),), {})
    #   - setup 시간은 재지 않습니다. round마다 불리므로 매 round가 새로 섞인 리스트를 정렬합니다.
    #   - pedantic의 rounds 기본값은 1입니다. 숫자 하나로는 흩어짐을 알 수 없으니 5 이상으로.
    #   - 왜 benchmark(insertion_sort, numbers)는 안 될까요? 첫 round가 numbers를 정렬해 버리면
    #     나머지 round는 "이미 정렬된 리스트"를 재게 됩니다 (insertion sort에게는 쉬운 문제).
    pytest.skip("TODO: insertion_sort 벤치마크를 쓰세요")
