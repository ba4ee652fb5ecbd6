"""병렬화의 한계를 계산하는 세 법칙 — WRONG on purpose (tests/exercises): right formulas, no input checks.

기호 (이 연습에서):
    p   병렬화할 수 있는 비율 (parallel fraction), 0 ≤ p ≤ 1. 직렬 비율은 1 − p.
    n   작업자 수 (프로세서, 코어, 프로세스), n ≥ 1
    S   속도 향상 (speedup) = T(1) / T(n)

(lab의 labs/amdahl/laws.py는 직렬 비율 s = 1 − p로 쓴다. 같은 식이다.)
"""

from __future__ import annotations

import math


def _check_fraction(p: float) -> None:
    # `not 0 <= p <= 1` is also true for NaN, which would otherwise flow silently through the maths
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p는 0과 1 사이의 비율이어야 합니다 (got {p!r})")


def _check_workers(n: float, least: float = 1.0) -> None:
    if not (n >= least and not math.isnan(n)):
        raise ValueError(f"n은 {least:g} 이상이어야 합니다 (got {n!r})")


def amdahl_speedup(p: float, n: float) -> float:
    """Amdahl의 법칙 (문제 크기 고정): S = 1 / ((1 − p) + p / n).

    직렬 부분 (1 − p)은 작업자가 몇이든 그대로 걸리고, 병렬 부분 p만 n으로 나뉜다.
    n → ∞이면 S → 1 / (1 − p): 직렬 부분이 상한을 정한다.
    """
    return 1.0 / ((1.0 - p) + p / n)


def gustafson_speedup(p: float, n: float) -> float:
    """Gustafson의 법칙 (작업자 수만큼 문제를 키울 때): S = (1 − p) + p · n.

    여기서 p는 n개 작업자로 실행할 때 병렬 부분이 차지하는 비율이다. 병렬 부분의 일이 n배로 늘어
    모든 작업자가 바쁘므로, 속도 향상이 n에 거의 비례해 커진다.
    """
    return (1.0 - p) + p * n


def karp_flatt(speedup: float, n: float) -> float:
    """Karp–Flatt 지표: 측정한 속도 향상에서 거꾸로 구한 직렬 비율 e.

        e = (1/S − 1/n) / (1 − 1/n)        (n ≥ 2)

    Amdahl의 식 S = 1 / (e + (1 − e)/n)를 e에 대해 푼 것이다. n을 늘려도 e가 일정하면 한계는 직렬
    코드이고, e가 n과 함께 커지면 통신·동기화처럼 n과 함께 커지는 비용이 있다.
    """
    return (1.0 / speedup - 1.0 / n) / (1.0 - 1.0 / n)
