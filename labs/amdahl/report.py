"""From times to speedups, predictions and estimates of s: the report that measure and simulate
mode share (tables, findings computed from the numbers, the plot)."""

from __future__ import annotations

import statistics
from typing import Any

from labs.amdahl import laws


def fmt_limit(limit: float) -> str:
    return "∞" if limit == float("inf") else f"{limit:.2f}"


def summarise(
    serial: float, workers: list[int], times: dict[int, float], effective: dict[int, int], mode: str
) -> dict[str, Any]:
    """Everything measure and simulate have in common. `effective` maps p to the p' the law uses."""
    t1 = times[1]
    speedups = {p: t1 / times[p] for p in workers}
    predicted = {p: laws.amdahl_speedup(serial, effective[p]) for p in workers}
    # Karp–Flatt with the effective p' (what the hardware could give), and, for measure mode,
    # with p as requested, which shows missing cores as a growing "serial fraction".
    karp = {p: laws.karp_flatt(speedups[p], effective[p]) for p in workers if effective[p] >= 2}
    karp_raw = {p: laws.karp_flatt(speedups[p], p) for p in workers if p >= 2}
    fitted = laws.fit_serial_fraction((effective[p], times[p] / t1) for p in workers)
    limit = laws.amdahl_limit(serial)
    best = max(workers, key=lambda p: speedups[p])
    tables = [
        _comparison_table(serial, workers, times, effective, speedups, predicted, karp, karp_raw, mode),
        _estimates_table(serial, karp, fitted),
    ]
    findings = []
    error = _error_finding(workers, speedups, predicted)
    if error:
        findings.append(error)
    if fitted is not None:
        findings.append(_fit_finding(serial, fitted))
    if len(karp) >= 2:
        findings.append(_karp_flatt_finding(karp))
    findings.append(_efficiency_finding(workers, speedups, best, limit))
    summary = (
        f"s = {serial:g}: 작업자 {best}명에서 최대 {speedups[best]:.2f}배 (예측 {predicted[best]:.2f}배)"
    )
    if fitted is not None:
        summary += f", fit으로 추정한 s = {fitted:.3f}"
    return {
        "summary": summary,
        "tables": tables,
        "findings": findings,
        "plots": [_speedup_plot(workers, speedups, predicted)],
        "mode": mode,
        "serial_fraction": serial,
        "workers": workers,
        "effective_workers": effective,
        "times": times,
        "speedups": speedups,
        "predicted": predicted,
        "efficiencies": {p: laws.efficiency(speedups[p], p) for p in workers},
        "karp_flatt": karp,
        "karp_flatt_raw": karp_raw,
        "fitted_serial": fitted,
        "limit": limit,
    }


# ---------------------------------------------------------------------------------------------
# Tables and the plot
# ---------------------------------------------------------------------------------------------


def _comparison_table(
    serial: float,
    workers: list[int],
    times: dict[int, float],
    effective: dict[int, int],
    speedups: dict[int, float],
    predicted: dict[int, float],
    karp: dict[int, float],
    karp_raw: dict[int, float],
    mode: str,
) -> dict[str, Any]:
    columns = ["workers", "p_eff", "time_s", "speedup", "predicted", "error_%", "efficiency", "karp_flatt"]
    if mode == "measure":
        columns.append("karp_flatt_raw_p")
    rows = []
    for p in workers:
        row = [
            p,
            effective[p],
            times[p],
            speedups[p],
            predicted[p],
            100 * (speedups[p] / predicted[p] - 1),
            laws.efficiency(speedups[p], p),
            karp.get(p),
        ]
        if mode == "measure":
            row.append(karp_raw.get(p))
        rows.append(row)
    return {
        "title": f"{'측정' if mode == 'measure' else '시뮬레이션'}: Amdahl 예측 vs 측정 (s = {serial:g})",
        "columns": columns,
        "rows": rows,
    }


def _estimates_table(serial: float, karp: dict[int, float], fitted: float | None) -> dict[str, Any]:
    estimates = [["설정값 (--serial)", serial]]
    if karp:
        estimates.append(["Karp–Flatt 중앙값", statistics.median(karp.values())])
    estimates.append(["최소제곱 fit", fitted])
    return {"title": "직렬 비율 s 추정", "columns": ["method", "serial_fraction"], "rows": estimates}


def _speedup_plot(workers: list[int], speedups: dict[int, float], predicted: dict[int, float]) -> dict:
    return {
        "title": "속도 향상: Amdahl 예측 vs 측정",
        "x": workers,
        # the legend's words: Korean like the rest of the report (c16: `predicted` / `measured`)
        "series": {
            "Amdahl 예측": [predicted[p] for p in workers],
            "측정": [speedups[p] for p in workers],
        },
        "xlabel": "작업자 수",
        "ylabel": "speedup (배)",
    }


# ---------------------------------------------------------------------------------------------
# Findings (Korean)
# ---------------------------------------------------------------------------------------------


def _error_finding(workers: list[int], speedups: dict[int, float], predicted: dict[int, float]) -> str | None:
    """The largest gap between measurement and prediction (None with one worker count only)."""
    errors = {p: abs(speedups[p] / predicted[p] - 1) for p in workers if p > 1}
    if not errors:
        return None
    worst = max(errors, key=lambda p: errors[p])
    return (
        f"측정 속도 향상은 Amdahl 예측과 최대 {errors[worst]:.1%} 차이납니다 (작업자 {worst}명: 측정 "
        f"{speedups[worst]:.2f}배, 예측 {predicted[worst]:.2f}배)."
    )


def _fit_finding(serial: float, fitted: float) -> str:
    fit_limit = laws.amdahl_limit(min(max(fitted, 0.0), 1.0))
    return (
        "여러 p의 T(p)/T(1)에 맞춘 최소제곱 fit이 추정한 직렬 "
        f"비율은 s = {fitted:.3f} (설정 {serial:g})이고, "
        f"이 s라면 작업자를 무한히 늘려도 {fmt_limit(fit_limit)}배가 한계입니다."
    )


def _karp_flatt_finding(karp: dict[int, float]) -> str:
    lo, hi = min(karp.values()), max(karp.values())
    return f"Karp–Flatt e는 p마다 {lo:.3f}–{hi:.3f} 범위입니다" + (
        " — 거의 일정하니 한계는 직렬 구간 자체입니다."
        if hi - lo <= 0.05
        else " — p에 따라 흔들리거나 커지면 측정 잡음이나 p와 함께 커지는 오버헤드를 의심하세요."
    )


def _efficiency_finding(workers: list[int], speedups: dict[int, float], best: int, limit: float) -> str:
    top = workers[-1]
    return (
        f"효율 S/p는 작업자 {top}명에서 {laws.efficiency(speedups[top], top):.0%} — 가장 큰 속도 향상은 "
        f"작업자 {best}명의 {speedups[best]:.2f}배입니다 (이론 한계 1/s = {fmt_limit(limit)}배)."
    )
