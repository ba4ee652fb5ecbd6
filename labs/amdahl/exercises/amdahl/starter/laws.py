"""병렬화의 한계를 계산하는 세 법칙 — TODO를 채우세요.

기호 (이 연습에서):
    p   병렬화할 수 있는 비율 (parallel fraction), 0 ≤ p ≤ 1. 직렬 비율은 1 − p.
    n   작업자 수 (프로세서, 코어, 프로세스), n ≥ 1
    S   속도 향상 (speedup) = T(1) / T(n)

(lab의 labs/amdahl/laws.py는 직렬 비율 s = 1 − p로 쓴다. 같은 식이다.)

검사: studyapp exercise check amdahl — 공식 값, n에 대한 단조성, 한계 1/(1 − p),
Karp–Flatt가 Amdahl을 거꾸로 푸는지, 잘못된 입력에 ValueError를 내는지 봅니다.
"""

from __future__ import annotations


def amdahl_speedup(p: float, n: float) -> float:
    """Amdahl의 법칙 (문제 크기 고정): 병렬 비율 p인 프로그램을 작업자 n개로 실행할 때의 속도 향상."""
    # TODO: 한 작업자의 실행 시간을 1로 두면, 직렬 부분은 (1 − p)만큼 그대로 걸리고
    #       병렬 부분 p는 n개로 나뉩니다. S = T(1) / T(n)을 식으로 쓰세요.
    # TODO: p가 0..1 밖이거나(NaN 포함) n < 1이면 ValueError를 내세요.
    #       힌트: `not 0 <= p <= 1`은 p가 NaN일 때도 True입니다.
    raise NotImplementedError("TODO: amdahl_speedup(p, n)")


def gustafson_speedup(p: float, n: float) -> float:
    """Gustafson의 법칙 (작업자 수만큼 문제를 키울 때): p는 n개로 실행할 때 병렬 부분의 비율."""
    # TODO: n개 작업자의 실행 시간을 1로 두면, 한 작업자가 같은 (큰) 일을 하는 데는
    #       직렬 (1 − p) + 병렬 p × n이 걸립니다. S = 그 시간 / 1.
    # TODO: amdahl_speedup과 같은 입력 검사 (ValueError).
    raise NotImplementedError("TODO: gustafson_speedup(p, n)")


def karp_flatt(speedup: float, n: float) -> float:
    """Karp–Flatt 지표: 작업자 n개에서 측정한 속도 향상 speedup이 뜻하는 직렬 비율 e."""
    # TODO: Amdahl의 식 S = 1 / (e + (1 − e) / n)을 e에 대해 풀어 쓰세요.
    #       karp_flatt(amdahl_speedup(p, n), n)은 1 − p로 돌아와야 합니다.
    # TODO: n < 2이면 (n = 1이면 분모가 0) 또는 speedup ≤ 0이면 ValueError.
    raise NotImplementedError("TODO: karp_flatt(speedup, n)")
