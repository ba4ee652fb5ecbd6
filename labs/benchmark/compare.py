"""두 벤치마크 결과가 "정말" 다른지 판단하는 규칙 (noise-aware verdict).

같은 코드를 두 번 재도 시간은 똑같이 나오지 않는다. CPU 주파수, 다른 프로세스, 캐시, GC가
매번 조금씩 다르게 끼어들기 때문이다. 그래서 "5 %보다 느려지면 regression" 같은 고정 기준은
시끄러운(noisy) 기계에서 **아무것도 바뀌지 않았는데도** 실패를 알린다(false alarm).

여기서는 기준이 되는 실행이 스스로 보여 준 흩어짐(IQR)으로 문턱(threshold)을 정한다:

    상대 IQR      r = IQR / median                      (한 실행 안의 흩어짐, outlier에 강하다)
    문턱          T(run) = 1 + min(100 %, max(20 %, 3 × r(run)))
    느려짐        new_min > old_min × T(old)  그리고  new_median > old_median × T(old)
    빨라짐        old_min > new_min × T(new)  그리고  old_median > new_median × T(new)

즉 "새 실행의 가장 빠른 round(min)와 보통 round(median)가 **둘 다** 이전 실행의 흩어짐 밖에 있을 때"만
느려졌다고 한다. 빨라짐은 거꾸로, 새 실행의 흩어짐으로 잰다 (그래서 두 실행의 잡음을 모두 쓴다).

- 어떤 통계를 믿을까 — 이 lab과 concurrency lab, 카드가 같은 규칙을 쓴다:
  **조용한 기계에서 CPU만 쓰는 짧은 코드(micro-benchmark)** 라면 방해(인터럽트, 다른 프로세스, 캐시
  미스)는 대부분 시간을 **늘리는** 쪽이라 min이 코드 자체의 속도에 가장 가깝다. 하지만 **기계의 속도
  자체가 변할 때**(CPU 주파수 조절, 가상 머신 이웃, 열) 는 min도 "운 좋았던" 한 round일 수 있다 — 이
  기계에서 같은 코드가 min 기준으로 27 % 빨라 보인 적이 있다. 그럴 때는 **median과 IQR**로 말하고,
  비교할 두 실행을 번갈아(interleave) 재거나 대조군(control)으로 기계 속도를 잰다. 그래서 판정은 min
  하나가 아니라 min **과** median이 둘 다 문턱을 넘을 때만 변화로 보고, control 벤치마크로 기계 drift를
  뺀다.
- 최소 20 %: 한 실행 안의 IQR은 실행과 실행 **사이**의 흔들림을 다 담지 못한다. 이 기계(가상 머신,
  2 core)에서 같은 코드를 다시 돌리면 median이 대개 10 % 안에서 달라졌지만, 다른 프로그램이 몇 초씩
  CPU를 쓰면 min까지 1.3~1.5배 느려지기도 했다. 그래서 lab은 기준을 넘은 테스트를 **한 번 더 재서**
  같은 판정이 다시 나올 때만 믿는다 (lab.py의 confirm_runs).
- 타이머 해상도보다 짧은 측정(min = 0, 예: `timer=time.time`)은 비율을 낼 수 없다: 0으로 나누지 않고
  "타이머 해상도 미만"으로 보고하고 판정에서 뺀다.
"""

from __future__ import annotations

from typing import Any

NOISE_K = 3.0  # 상대 IQR 몇 배까지를 잡음으로 볼까
MIN_EFFECT = 0.20  # 적어도 이만큼(20 %)은 달라야 변화로 본다
MAX_EFFECT = 1.0  # 문턱의 상한: 2배 넘게 달라진 것은 잡음 탓으로 넘기지 않고 다시 재서 확인한다
FIXED_PCT = 0.05  # 비교용: 흔히 쓰는 고정 5 % 기준

REGRESSION = "regression"  # 느려짐
IMPROVEMENT = "improvement"  # 빨라짐
UNCHANGED = "unchanged"  # 잡음 범위 안 — 달라졌다고 말할 수 없음

CONTROL_GROUP = "control"  # suite/bench_control.py: a workload no code change touches

VERDICT_KO = {REGRESSION: "느려짐", IMPROVEMENT: "빨라짐", UNCHANGED: "변화 없음"}


def safe_ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when the denominator is 0 (a time below the timer's resolution)."""
    return numerator / denominator if denominator > 0 else None


def below_resolution(stats: dict[str, Any]) -> bool:
    """A measurement whose min or median is 0: the timer could not see it, so no ratio is meaningful."""
    return stats["min"] <= 0 or stats["median"] <= 0


def relative_iqr(stats: dict[str, Any]) -> float:
    """IQR / median: 한 실행 안에서 round 시간이 얼마나 흩어졌나 (0.02 = 2 %)."""
    median = stats["median"]
    return stats["iqr"] / median if median else 0.0


def noise_threshold(reference: dict[str, Any]) -> float:
    """reference 실행보다 이 배율 넘게 느려야 "느리다"고 말할 수 있다 (reference의 잡음에서 계산)."""
    # The cap: a saved run caught in a burst of load can have a huge IQR, which would let even a 3x
    # slowdown pass as noise. Beyond 2x the change is re-measured instead (lab.confirm_runs).
    return 1.0 + min(MAX_EFFECT, max(MIN_EFFECT, NOISE_K * relative_iqr(reference)))


def slower_beyond_noise(slow: dict[str, Any], fast: dict[str, Any]) -> bool:
    """slow의 min과 median이 둘 다 fast의 흩어짐(문턱) 밖, 위쪽에 있나."""
    threshold = noise_threshold(fast)
    return slow["min"] > fast["min"] * threshold and slow["median"] > fast["median"] * threshold


def noise_verdict(old: dict[str, Any], new: dict[str, Any]) -> str:
    """잡음을 고려한 판정. old/new는 pytest-benchmark JSON의 stats (min, median, iqr ...)."""
    if below_resolution(old) or below_resolution(new):
        return UNCHANGED  # 0초로 잰 것은 어느 쪽이 빠르다고 말할 수 없다
    if slower_beyond_noise(new, old):
        return REGRESSION
    if slower_beyond_noise(old, new):
        return IMPROVEMENT
    return UNCHANGED


def threshold_for(old: dict[str, Any], new: dict[str, Any]) -> float:
    """표에 보여 줄 문턱: 느려진 쪽이면 T(old), 빨라진 쪽이면 T(new)."""
    return noise_threshold(old) if new["median"] >= old["median"] else noise_threshold(new)


def fixed_verdict(ratio: float, pct: float = FIXED_PCT) -> str:
    """고정 기준 판정: median 비율이 1 ± pct를 벗어나면 바로 변화로 본다 (잡음을 보지 않는다)."""
    if ratio > 1 + pct:
        return REGRESSION
    if ratio < 1 - pct:
        return IMPROVEMENT
    return UNCHANGED


def machine_drift(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> float | None:
    """How much slower the whole machine ran: the control benchmark's min, new / old.

    `old`/`new` map test names to their pytest-benchmark entries. None without a control.
    min, because the control is a CPU-bound loop: its fastest round is the machine's best speed
    in that run. None without a control (or when its min was below the timer's resolution).
    """
    old_control = [b for b in old.values() if b.get("group") == CONTROL_GROUP]
    new_control = [b for b in new.values() if b.get("group") == CONTROL_GROUP]
    if not old_control or not new_control:
        return None
    return safe_ratio(new_control[0]["stats"]["min"], old_control[0]["stats"]["min"])


def scaled(stats: dict[str, Any], factor: float) -> dict[str, Any]:
    """Timing statistics divided by `factor` (to take machine drift out of a new run)."""
    return {**stats, **{k: stats[k] / factor for k in ("min", "median", "iqr") if k in stats}}
