"""벤치마크가 쓰는 입력 데이터(fixture). 데이터 만들기는 측정 시간에 들어가지 않는다."""

from __future__ import annotations

import numpy as np
import pytest

N_SAMPLES, N_FEATURES = 256, 32  # 정규화할 batch: 샘플 256개 × feature 32개
# collate할 샘플: feature 192개짜리 float32 벡터 128개 → batch 하나가 96 KB.
# 128 KB보다 작게 둔 이유: 그보다 큰 배열은 glibc가 mmap으로 할당하는데, 이 기계에서는 그때
# 같은 코드가 실행마다 0.4 ms / 1.5 ms 두 갈래로 갈렸다 (측정이 메모리 할당기에 좌우됨).
N_VECTORS, VECTOR_SIZE = 128, 192


def make_batch() -> np.ndarray:
    """항상 같은 값(seed 고정)의 새 batch 배열."""
    rng = np.random.default_rng(0)
    return rng.normal(loc=5.0, scale=2.0, size=(N_SAMPLES, N_FEATURES))


@pytest.fixture
def batch() -> np.ndarray:
    return make_batch()


@pytest.fixture
def rows() -> list[list[float]]:
    """같은 데이터를 순수 Python이 다루는 모양(list of lists)으로."""
    return make_batch().tolist()


@pytest.fixture
def samples() -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.random(VECTOR_SIZE, dtype=np.float32) for _ in range(N_VECTORS)]
