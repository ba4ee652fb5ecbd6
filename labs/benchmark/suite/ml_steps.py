"""ML 전처리 단계 몇 가지를 여러 방식으로 구현한 것 — 벤치마크의 대상(code under test).

같은 일을 하는 함수들이 **같은 결과**를 내는지는 단위 테스트(unit test)가 확인하고,
**얼마나 빠른지**는 벤치마크(benchmark)가 잰다. bench_*.py 파일에 둘 다 있다.
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np

EPS = 1e-8  # 분산이 0인 feature에서 0으로 나누지 않도록

# --- 일부러 느려지게 하는 장치 (regression을 심어 보는 실험용) -------------------------------
# STUDYAPP_BENCH_SLOWDOWN=3 이면 아래 함수들이 같은 일을 3번 한다 → 약 3배 느려진 "새 버전".
# `python -m labs.benchmark --compare NAME`이 이 느려짐을 잡아내는지 볼 때 쓴다.
# 값이 1(기본)이면 원래 함수를 그대로 돌려주므로 측정에 아무 영향이 없다.
SLOWDOWN = max(1, int(os.environ.get("STUDYAPP_BENCH_SLOWDOWN", "1") or "1"))


def planted_slowdown(fn):
    if SLOWDOWN == 1:
        return fn

    @functools.wraps(fn)
    def slower(*args, **kwargs):
        for _ in range(SLOWDOWN - 1):
            fn(*args, **kwargs)
        return fn(*args, **kwargs)

    return slower


# --- 1. 정규화(normalisation): feature마다 평균 0, 표준편차 1로 (z-score) ---------------------
# 입력: 샘플 n개 × feature d개. Python 버전은 list of lists, numpy 버전은 ndarray를 받는다.
# (변환 비용은 재지 않는다: conftest.py의 fixture가 미리 만들어 둔다.)


@planted_slowdown
def normalize_loop(rows: list[list[float]]) -> list[list[float]]:
    """순수 Python for 루프: 원소 하나하나를 인터프리터가 처리한다."""
    n, d = len(rows), len(rows[0])
    means = [0.0] * d
    for row in rows:
        for j in range(d):
            means[j] += row[j]
    for j in range(d):
        means[j] /= n

    variances = [0.0] * d
    for row in rows:
        for j in range(d):
            diff = row[j] - means[j]
            variances[j] += diff * diff
    stds = [math.sqrt(v / n) + EPS for v in variances]

    out = []
    for row in rows:
        new_row = []
        for j in range(d):
            new_row.append((row[j] - means[j]) / stds[j])
        out.append(new_row)
    return out


@planted_slowdown
def normalize_comprehension(rows: list[list[float]]) -> list[list[float]]:
    """list comprehension: 같은 Python 코드지만 append 호출·루프 오버헤드가 줄어든다."""
    n = len(rows)
    columns = list(zip(*rows, strict=True))
    means = [sum(col) / n for col in columns]
    stds = [
        math.sqrt(sum([(x - m) * (x - m) for x in col]) / n) + EPS
        for col, m in zip(columns, means, strict=True)
    ]
    return [[(x - m) / s for x, m, s in zip(row, means, stds, strict=True)] for row in rows]


@planted_slowdown
def normalize_numpy(batch: np.ndarray) -> np.ndarray:
    """numpy 벡터화(vectorisation): 루프가 C 코드 안에서 돈다. 새 배열을 만들어 돌려준다."""
    mean = batch.mean(axis=0)
    std = batch.std(axis=0) + EPS
    return (batch - mean) / std


@planted_slowdown
def normalize_numpy_inplace(batch: np.ndarray) -> np.ndarray:
    """numpy in-place: 입력 배열을 직접 고친다(새 메모리 할당이 적다).

    입력을 바꿔 버리므로 벤치마크의 round마다 새 입력이 필요하다 →
    bench_normalize.py에서 benchmark.pedantic(..., setup=...)으로 잰다.
    """
    batch -= batch.mean(axis=0)
    batch /= batch.std(axis=0) + EPS
    return batch


# --- 2. collate: 샘플 여러 개를 하나의 batch 배열로 묶기 (DataLoader의 collate_fn이 하는 일) ----


@planted_slowdown
def collate_by_concatenating(samples: list[np.ndarray]) -> np.ndarray:
    """샘플이 올 때마다 batch를 np.concatenate로 키운다.

    매번 지금까지의 batch 전체를 새 배열로 복사하므로 복사량이 샘플 수의 제곱에 비례한다.
    """
    batch = samples[0][np.newaxis]
    for sample in samples[1:]:
        batch = np.concatenate([batch, sample[np.newaxis]])
    return batch


@planted_slowdown
def collate_with_stack(samples: list[np.ndarray]) -> np.ndarray:
    """np.stack으로 한 번에 묶는다: 결과 배열을 한 번 할당하고 샘플마다 한 번씩만 복사한다."""
    return np.stack(samples)
