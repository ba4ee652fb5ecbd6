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

그리고 측정값에서 계산한 해석(findings) 중 잡음과 비교에 관한 것: noise_findings, unit_vs_bench,
comparison_findings (lab.py가 부른다).
"""

from __future__ import annotations

import statistics
from typing import Any

NOISE_K = 3.0  # 상대 IQR 몇 배까지를 잡음으로 볼까
MIN_EFFECT = 0.20  # 적어도 이만큼(20 %)은 달라야 변화로 본다
MAX_EFFECT = 1.0  # 문턱의 상한: 2배 넘게 달라진 것은 잡음 탓으로 넘기지 않고 다시 재서 확인한다
FIXED_PCT = 0.05  # 비교용: 흔히 쓰는 고정 5 % 기준

REGRESSION = "regression"  # 느려짐
IMPROVEMENT = "improvement"  # 빨라짐
UNCHANGED = "unchanged"  # 잡음 범위 안 — 달라졌다고 말할 수 없음

CONTROL_GROUP = "control"  # suite/bench_control.py: a workload no code change touches
MIN_ROUNDS_FOR_SPREAD = 5  # fewer rounds than this say nothing about how steady a benchmark is

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


# --- 해석: 잡음, 단위 테스트와 벤치마크, 저장된 실행과의 비교 (모두 측정값에서 계산) ---------------------


def noise_findings(benchmarks: list[dict[str, Any]]) -> list[str]:
    findings = []
    unseen = [b["name"] for b in benchmarks if b["below_resolution"]]
    if unseen:
        findings.append(
            f"타이머 해상도 미만: {', '.join(unseen)} — min(또는 median)이 0으로 기록됐다 (예: timer=time.time은 "
            "해상도가 거칠다). 0초로 잰 값으로는 비율을 낼 수 없어 비교와 판정에서 뺐다. 한 round에 여러 번 "
            "호출하거나(iterations), time.perf_counter 같은 정밀한 타이머를 쓰자."
        )
    few = [b["name"] for b in benchmarks if b["rounds"] < MIN_ROUNDS_FOR_SPREAD and not b["below_resolution"]]
    eligible = [b for b in benchmarks if b["rounds"] >= MIN_ROUNDS_FOR_SPREAD and not b["below_resolution"]]
    if few:
        findings.append(
            f"round가 {MIN_ROUNDS_FOR_SPREAD}번보다 적은 것: {', '.join(few)} — 한두 번 잰 값은 흩어짐을 말해 주지 "
            "않는다 (CV 0 %는 안정적이라는 뜻이 아니라 잰 횟수가 없다는 뜻). pedantic(rounds=1)은 준비 비용이 큰 "
            "코드를 한 번 재는 용도다."
        )
    if not eligible:
        return findings
    noisiest = max(eligible, key=lambda b: b["cv"])
    steadiest = min(eligible, key=lambda b: b["cv"])
    rel = relative_iqr(noisiest)
    gap = statistics.median((b["median"] - b["min"]) / b["min"] for b in eligible)
    findings += [
        f"변동계수 CV = stddev/mean: {steadiest['name']} {steadiest['cv']:.1%} ~ {noisiest['name']} "
        f"{noisiest['cv']:.1%}. 같은 코드를 같은 입력으로 돌려도 round마다 시간이 이만큼 흔들린다(noise).",
        f"{noisiest['name']}: CV {noisiest['cv']:.1%}인데 IQR/median은 {rel:.1%}이다. stddev와 mean은 드물게 "
        f"크게 늦은 round(outlier: 다른 프로세스, GC)에 끌려가므로, 대표값으로는 min과 median을 인용한다.",
        f"median은 min보다 보통 {gap:.1%} 크다: min은 방해가 가장 적었던 round, median은 보통의 round다. "
        "조용한 기계의 CPU-bound micro-benchmark라면 방해는 대개 시간을 늘리므로 min이 코드의 속도에 가장 "
        "가깝다. 기계 속도 자체가 변하는 곳(주파수 조절, VM 이웃)에서는 min도 운 좋은 한 번일 수 있으니 "
        "median과 IQR로 말하고, 실행을 번갈아 재거나 control로 기계 속도를 함께 잰다.",
    ]
    return findings


def unit_vs_bench(tests: list[dict[str, Any]]) -> list[str]:
    units = [t for t in tests if t["kind"] == "unit"]
    benches = [t for t in tests if t["kind"] == "benchmark"]
    empty = [t for t in tests if t["kind"] == "benchmark_no_stats"]
    if not tests:
        return []
    unit_passed = sum(t["outcome"] == "passed" for t in units)
    calls = statistics.median(t["calls"] for t in benches) if benches else 0
    text = ""
    if units:
        text += (
            f"단위 테스트(unit test) {len(units)}개는 각각 한 번 실행되어 pass/fail만 남겼다 "
            f"({unit_passed}/{len(units)} 통과: 구현들이 같은 결과를 내는지 확인). "
        )
    text += f"벤치마크 {len(benches)}개는 테스트당 {calls:.0f}번(중앙값) 함수를 호출해 시간의 분포를 남겼다."
    if empty:
        shown = ", ".join(f"{t['name']} {t['outcome']}" for t in empty[:5]) + (" …" if len(empty) > 5 else "")
        text += (
            f" benchmark fixture를 받았지만 잰 것이 없는 테스트 {len(empty)}개({shown})는 "
            "단위 테스트도 벤치마크도 아니라 따로 센다 (skip되었거나 benchmark를 호출하지 않았다)."
        )
    failed = [t["name"] for t in tests if t["outcome"] in ("failed", "error")]
    if failed:
        text += f" 실패: {', '.join(failed)}."
    return [
        text,
        "벤치마크가 passed라고 해서 빠르다는 뜻은 아니고, 단위 테스트가 통과해도 느려졌는지는 모른다: "
        "정확성은 단위 테스트로, 속도는 벤치마크의 숫자(와 저장된 실행과의 비교)로 판단한다.",
    ]


def comparison_findings(
    comparison: list[dict[str, Any]], old: dict[str, Any], new: dict[str, Any], name: str
) -> list[str]:
    """What the comparison with the saved run `name` shows, and what it cannot (lab.py's --compare)."""
    if not comparison:
        return [f"저장된 실행 '{name}'과 이름이 같은 (타이머로 잴 수 있는) 테스트가 없어 비교할 수 없다."]
    noisy = [c["name"] for c in comparison if c["noise_verdict"] == REGRESSION]
    fixed = [c["name"] for c in comparison if c["fixed5_verdict"] == REGRESSION]
    false_alarms = [n for n in fixed if n not in noisy]
    biggest = max(comparison, key=lambda c: c["ratio"])
    findings = [
        f"'{name}' 대비 느려짐: 잡음 고려 판정 {len(noisy)}개, 고정 5 % 기준 {len(fixed)}개 "
        f"(테스트 {len(comparison)}개 중). 가장 크게 변한 것은 {biggest['name']} ×{biggest['ratio']:.2f}.",
        f"잡음 고려 기준: 새 실행의 min과 median이 둘 다 이전 실행의 1 + max({MIN_EFFECT:.0%}, "
        f"{NOISE_K:g} × IQR/median)배를 넘고, 다시 재도 그래야 느려짐으로 본다 (잡음은 시간을 늘리기만 하므로 "
        f"min까지 느려졌다면 코드가 느려진 것이다). 이번 문턱은 "
        f"×{min(c['noise_threshold'] for c in comparison):.2f} ~ ×{max(c['noise_threshold'] for c in comparison):.2f}.",
    ]
    noisy_base = [c for c in comparison if c["old_rel_iqr"] * NOISE_K > 1]
    if noisy_base:
        worst = max(noisy_base, key=lambda c: c["old_rel_iqr"])
        findings.append(
            f"저장된 실행 '{name}'이 시끄럽다: {worst['name']}의 IQR/median이 {worst['old_rel_iqr']:.0%}라 문턱이 "
            f"상한 ×{1 + MAX_EFFECT:.0f}까지 올라갔다. 이만큼 흩어진 기준으로는 2배 가까이 느려져도 "
            f"못 잡을 수 있다 — 기계가 조용할 때 다시 저장하자(--save {name})."
        )
    drift = _drift_finding(comparison, name)
    if drift:
        findings.append(drift)
    findings += _undecided_findings(comparison, false_alarms)
    findings += _setup_findings(old, new)
    return findings


def _drift_finding(comparison: list[dict[str, Any]], name: str) -> str | None:
    """Whether the machine as a whole changed speed (the control benchmark), and what was done about it."""
    drift = comparison[0]["machine_drift"]
    if drift is None:
        return (
            f"기계 drift를 빼지 않았다: 저장된 실행 '{name}' 또는 이번 실행에 control 벤치마크가 없다 "
            "(control 없이 저장한 예전 실행). 기계 전체가 느려진 것과 코드가 느려진 것을 구별할 수 없으니, "
            f"--save {name}로 다시 저장한 뒤 비교하자."
        )
    if abs(drift - 1) > MIN_EFFECT:
        used = sorted({f"×{c['drift_used']:.2f}" for c in comparison if c["drift_used"]})
        return (
            f"control 벤치마크(코드가 바뀌지 않는 고정 작업)도 ×{drift:.2f} 변했다: 코드가 아니라 기계 전체의 속도가 "
            "달라진 것이다. "
            + (
                "의심 가는 테스트를 다시 잴 때 control도 다시 재서, 두 번 모두 본 만큼의 drift를 빼고 판정했다 "
                f"(뺀 배율 {', '.join(used)})"
                if used
                else "다시 잴 만큼 의심스러운 테스트가 없어 drift를 뺄 일이 없었다"
            )
            + " — 빼지 않은 고정 5 % 기준은 이런 때 모든 테스트를 느려졌다고 한다."
        )
    return None


def _undecided_findings(comparison: list[dict[str, Any]], false_alarms: list[str]) -> list[str]:
    """Tests the noise-aware rule did not call slower: too few rounds, not reproduced, fixed-5 % only."""
    findings = []
    few = [c["name"] for c in comparison if c["too_few_rounds"]]
    if few:
        findings.append(
            f"round가 {MIN_ROUNDS_FOR_SPREAD}번보다 적어 잡음 고려 판정을 하지 않은 것: {', '.join(few)} — "
            "흩어짐을 모르면 변화와 잡음을 가를 수 없다 (고정 5 % 기준은 그래도 판정해 버린다)."
        )
    unconfirmed = [c["name"] for c in comparison if c["first_verdict"] != c["noise_verdict"]]
    if unconfirmed:
        findings.append(
            f"첫 측정에서는 기준을 넘었지만 다시 재니 재현되지 않은 것: {', '.join(unconfirmed)}. "
            f"한 번의 차이는 그 순간 기계가 바빴던 탓(noise)일 수 있다."
        )
    if false_alarms:
        findings.append(
            f"고정 {FIXED_PCT:.0%} 기준만 느려짐이라 한 것: {', '.join(false_alarms)}. 변화가 측정된 흩어짐 안에 있어 "
            f"잡음일 수 있다 — 시끄러운 기계에서 고정 5 % 기준은 거짓 경보(false alarm)를 낸다."
        )
    return findings


def _setup_findings(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Differences of settings, machine or Python between the saved run and this one."""
    findings = []
    old_opts = {b.get("fullname"): b.get("options", {}) for b in old["benchmarks"]}
    changed = [
        b["name"] for b in new["benchmarks"]
        if old_opts.get(b.get("fullname")) not in (None, b.get("options", {}))
    ]  # fmt: skip
    if changed:
        findings.append(f"측정 설정(max_time, min_rounds 등)이 저장된 실행과 다르다: {', '.join(changed)}.")
    keys = ("node", "machine", "python_implementation", "python_version")
    old_m, new_m = old.get("machine_info", {}), new.get("machine_info", {})
    differ = [k for k in keys if old_m.get(k) != new_m.get(k)]
    if differ:
        findings.append(
            f"저장된 실행과 기계/파이썬이 다르다({', '.join(differ)}): 차이가 코드 때문이라고 말할 수 없다."
        )
    return findings
