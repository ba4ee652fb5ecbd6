"""정규화 세 가지(+in-place) 비교. 실행: pytest labs/benchmark/suite

단위 테스트(test_..._agree)는 결과가 같은지 **한 번** 확인하고 pass/fail만 남긴다.
벤치마크(benchmark fixture를 쓰는 테스트)는 같은 함수를 **여러 round** 돌려 시간의 분포를 남긴다.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_batch
from ml_steps import normalize_comprehension, normalize_loop, normalize_numpy, normalize_numpy_inplace

# --- 단위 테스트: 빠르기와 상관없이 "맞는가?"만 본다 ------------------------------------------


def test_normalize_versions_agree(batch, rows):
    expected = normalize_numpy(batch)
    np.testing.assert_allclose(np.array(normalize_loop(rows)), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.array(normalize_comprehension(rows)), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(normalize_numpy_inplace(batch.copy()), expected, rtol=1e-6, atol=1e-6)
    # 정규화 결과는 feature마다 평균 0, 표준편차 1
    np.testing.assert_allclose(expected.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(expected.std(axis=0), 1.0, atol=1e-6)


# --- 벤치마크: group이 같은 것끼리 한 표에서 비교된다 ---------------------------------------


@pytest.mark.benchmark(group="normalize")
def test_normalize_loop(benchmark, rows):
    result = benchmark(normalize_loop, rows)  # benchmark(...)는 함수의 반환값을 돌려준다
    assert len(result) == len(rows)  # 벤치마크 안에서도 결과를 간단히 확인할 수 있다


@pytest.mark.benchmark(group="normalize")
def test_normalize_comprehension(benchmark, rows):
    result = benchmark(normalize_comprehension, rows)
    assert len(result) == len(rows)


@pytest.mark.benchmark(group="normalize")
def test_normalize_numpy(benchmark, batch):
    result = benchmark(normalize_numpy, batch)
    assert result.shape == batch.shape


@pytest.mark.benchmark(group="normalize")
def test_normalize_numpy_inplace(benchmark):
    # in-place 함수는 입력을 바꾼다. 같은 배열로 여러 번 재면 두 번째 round부터는
    # "이미 정규화된" 배열을 다시 정규화하게 된다. 그래서 pedantic 모드의 setup으로
    # round마다 새 입력을 만든다. setup 시간은 측정에 들어가지 않는다.
    # (setup을 쓰면 iterations는 1이어야 한다: round 하나 = 호출 한 번)
    def fresh_input():
        return (make_batch(),), {}  # (args, kwargs)

    result = benchmark.pedantic(normalize_numpy_inplace, setup=fresh_input, rounds=200, iterations=1)
    assert result.shape == (make_batch().shape)
