"""벤치마크할 두 구현 — 이 파일은 고치지 마세요 (checker는 이 파일의 원본으로 잽니다).

둘 다 정수 리스트를 오름차순으로 정렬하지만 방식이 다릅니다.

- insertion_sort(values): 리스트를 **그 자리에서(in place)** 바꾸고 None을 돌려준다.
  한 번 부르고 나면 values는 이미 정렬되어 있다. 정렬된 입력에서 insertion sort는 O(n)이라
  (원소마다 비교 한 번), 같은 리스트로 두 번째 round를 재면 **다른 문제**를 재게 된다.
- merge_sorted(values): values는 건드리지 않고 정렬된 **새 리스트**를 돌려준다. 같은 입력으로
  몇 번을 불러도 매번 같은 일을 한다.
"""

from __future__ import annotations


def insertion_sort(values: list[int]) -> None:
    """values를 그 자리에서 정렬한다 (O(n²), 정렬된 입력이면 O(n))."""
    for i in range(1, len(values)):
        current = values[i]
        j = i - 1
        while j >= 0 and values[j] > current:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = current


def merge_sorted(values: list[int]) -> list[int]:
    """정렬된 새 리스트를 돌려준다 (O(n log n)). values는 그대로 둔다."""
    if len(values) <= 1:
        return list(values)
    middle = len(values) // 2
    left, right = merge_sorted(values[:middle]), merge_sorted(values[middle:])
    merged: list[int] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged
