"""collate(샘플 → batch) 두 가지 비교. 실행: pytest labs/benchmark/suite"""

from __future__ import annotations

import numpy as np
import pytest
from ml_steps import collate_by_concatenating, collate_with_stack


def test_collate_versions_agree(samples):
    """단위 테스트: 두 방법의 결과가 똑같은가 (한 번 실행, pass/fail)."""
    stacked = collate_with_stack(samples)
    assert stacked.shape == (len(samples), *samples[0].shape)
    np.testing.assert_array_equal(collate_by_concatenating(samples), stacked)


@pytest.mark.benchmark(group="collate")
def test_collate_by_concatenating(benchmark, samples):
    batch = benchmark(collate_by_concatenating, samples)
    assert batch.shape[0] == len(samples)


@pytest.mark.benchmark(group="collate")
def test_collate_with_stack(benchmark, samples):
    batch = benchmark(collate_with_stack, samples)
    assert batch.shape[0] == len(samples)
