"""Calculation drills: numeric questions on Amdahl's law and pipeline throughput.

Each drill is answered with a number and graded within an absolute tolerance. The bank is fixed
and deterministic, so a drill's id is stable and progress can be keyed by it like an O/X item.
The parameters are written into the id, so anyone (a test, a curious learner) can recompute the
answer from the id alone:

    drill-amdahl-speedup-{P}-{N}        parallel fraction P %, N workers: 1 / ((1 - P) + P / N)
    drill-amdahl-limit-{P}              parallel fraction P %: 1 / (1 - P)
    drill-amdahl-efficiency-{P}-{N}     Amdahl speedup / N (a value between 0 and 1)
    drill-karp-flatt-{S100}-{N}         measured speedup S100 / 100 on N workers: (1/S - 1/N) / (1 - 1/N)
    drill-gustafson-{s}-{N}             serial fraction s %, N workers: N - s (N - 1)
    drill-pipeline-throughput-{a}-{b}-...        stage times in ms: 1000 / max
    drill-pipeline-parallel-{a}-{b}-...-w{k}     the slowest stage gets k workers: 1000 / max(t_i / k_i)

Standard library only: the quiz path must not import numpy, torch or Textual.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

TOPIC = "bottleneck-analysis"


@dataclass(frozen=True)
class Drill:
    id: str  # stable, parameters included (see the module docstring)
    topic: str
    checklist: tuple[str, ...]
    prompt: str  # Korean
    answer: float
    tolerance: float  # absolute
    unit: str  # "배", "", "items/s"
    explanation: str  # Korean, the formula with the numbers substituted


# Answers are asked to a number of decimals; the tolerance is one unit of the last decimal, so
# both a rounded and a truncated answer pass, a wrong one does not.
_DECIMALS_NOTE = {1: "소수 첫째 자리까지", 2: "소수 둘째 자리까지", 3: "소수 셋째 자리까지"}


def _tolerance(decimals: int) -> float:
    return 10.0**-decimals


def _pct(value: int) -> str:
    return f"{value} %"


def _fmt(x: float, decimals: int) -> str:
    """x rounded the way people round on paper (0.625 -> 0.63), unlike format()'s half-to-even."""
    return str(Decimal(repr(round(x, 9))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


# ---------------------------------------------------------------------------------------------
# Drill makers: one per kind. Each computes the answer and writes the worked explanation.
# ---------------------------------------------------------------------------------------------


def _amdahl(parallel_pct: int, workers: int) -> float:
    p = parallel_pct / 100
    return 1 / ((1 - p) + p / workers)


def amdahl_speedup(parallel_pct: int, workers: int) -> Drill:
    p = parallel_pct / 100
    s = _amdahl(parallel_pct, workers)
    return Drill(
        id=f"drill-amdahl-speedup-{parallel_pct}-{workers}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"병렬화 가능 비율 {_pct(parallel_pct)}, 작업자 {workers}명일 때 Amdahl 속도 향상은? "
        f"({_DECIMALS_NOTE[2]})",
        answer=s,
        tolerance=_tolerance(2),
        unit="배",
        explanation=(
            f"Amdahl의 법칙: S = 1 / ((1 − P) + P/N) = 1 / ({_fmt(1 - p, 2)} + {_fmt(p, 2)}/{workers}) "
            f"= 1 / {_fmt((1 - p) + p / workers, 4)} ≈ {_fmt(s, 2)}배. 직렬 구간 {_pct(100 - parallel_pct)}는 작업자 수와 "
            f"상관없이 그대로 걸리므로 {workers}배가 되지 못한다."
        ),
    )


def amdahl_limit(parallel_pct: int) -> Drill:
    serial = (100 - parallel_pct) / 100
    limit = 1 / serial
    return Drill(
        id=f"drill-amdahl-limit-{parallel_pct}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"병렬화 가능 비율이 {_pct(parallel_pct)}인 프로그램은 작업자를 아무리 늘려도 최대 몇 배까지 "
        f"빨라질 수 있는가? ({_DECIMALS_NOTE[2]})",
        answer=limit,
        tolerance=_tolerance(2),
        unit="배",
        explanation=(
            f"N → ∞이면 P/N → 0이므로 S → 1 / (1 − P) = 1 / {_fmt(serial, 2)} ≈ {_fmt(limit, 2)}배. "
            "직렬 비율의 역수가 병렬화의 한계다."
        ),
    )


def amdahl_efficiency(parallel_pct: int, workers: int) -> Drill:
    p = parallel_pct / 100
    s = _amdahl(parallel_pct, workers)
    e = s / workers
    return Drill(
        id=f"drill-amdahl-efficiency-{parallel_pct}-{workers}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"병렬화 가능 비율 {_pct(parallel_pct)}, 작업자 {workers}명일 때 병렬 효율(속도 향상 ÷ 작업자 수)은? "
        f"(0–1 사이 값, {_DECIMALS_NOTE[2]})",
        answer=e,
        tolerance=_tolerance(2),
        unit="",
        explanation=(
            f"S = 1 / ({_fmt(1 - p, 2)} + {_fmt(p, 2)}/{workers}) ≈ {_fmt(s, 2)}배, 효율 E = S / N = {_fmt(s, 2)} / {workers} ≈ {_fmt(e, 2)}. "
            "작업자를 늘릴수록 효율은 떨어진다."
        ),
    )


def karp_flatt(speedup_x100: int, workers: int) -> Drill:
    s = speedup_x100 / 100
    e = (1 / s - 1 / workers) / (1 - 1 / workers)
    return Drill(
        id=f"drill-karp-flatt-{speedup_x100}-{workers}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"작업자 {workers}명으로 실행했더니 {s:g}배 빨라졌다. Karp–Flatt 지표로 추정한 직렬 비율 e는? "
        f"(0–1 사이 값, {_DECIMALS_NOTE[3]})",
        answer=e,
        tolerance=_tolerance(3),
        unit="",
        explanation=(
            f"e = (1/S − 1/p) / (1 − 1/p) = (1/{s:g} − 1/{workers}) / (1 − 1/{workers}) "
            f"= ({_fmt(1 / s, 4)} − {_fmt(1 / workers, 4)}) / {_fmt(1 - 1 / workers, 4)} ≈ {_fmt(e, 3)}. "
            "Amdahl의 법칙을 s에 대해 푼 식이며, p가 커질 때 e가 커지면 직렬 코드보다 병렬 오버헤드가 문제다."
        ),
    )


def gustafson(serial_pct: int, workers: int) -> Drill:
    s = serial_pct / 100
    speedup = workers - s * (workers - 1)
    return Drill(
        id=f"drill-gustafson-{serial_pct}-{workers}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"작업자 {workers}명으로 문제 크기를 키워 실행할 때 직렬 구간이 {_pct(serial_pct)}라면 Gustafson의 "
        f"법칙에 따른 확장 속도 향상(scaled speedup)은? ({_DECIMALS_NOTE[2]})",
        answer=speedup,
        tolerance=_tolerance(2),
        unit="배",
        explanation=(
            f"Gustafson의 법칙: S = N − s(N − 1) = {workers} − {_fmt(s, 2)} × {workers - 1} = {_fmt(speedup, 2)}배. "
            "문제 크기를 고정하는 Amdahl과 달리 작업량이 작업자 수에 맞춰 늘어나므로 거의 선형으로 커진다."
        ),
    )


def _ms(values: list[float]) -> str:
    return ", ".join(f"{v:g} ms" for v in values)


def pipeline_throughput(stages_ms: tuple[int, ...]) -> Drill:
    slowest = max(stages_ms)
    rate = 1000 / slowest
    return Drill(
        id="drill-pipeline-throughput-" + "-".join(str(t) for t in stages_ms),
        topic=TOPIC,
        checklist=("pipeline-bottleneck",),
        prompt=f"{len(stages_ms)}단계 파이프라인의 단계별 처리 시간이 {_ms(list(stages_ms))}이다(단계마다 작업자 1명, "
        f"단계들은 동시에 실행). 정상 상태 처리량은 몇 items/s인가? ({_DECIMALS_NOTE[1]})",
        answer=rate,
        tolerance=_tolerance(1),
        unit="items/s",
        explanation=(
            f"처리량 = 1 / 가장 느린 단계 = 1 / {slowest:g} ms = 1000 / {slowest:g} ≈ {_fmt(rate, 1)} items/s. "
            f"단계 시간의 합({sum(stages_ms):g} ms)은 한 항목의 지연 시간(latency)이지 처리량을 정하지 않는다."
        ),
    )


def pipeline_parallel(stages_ms: tuple[int, ...], workers: int) -> Drill:
    b = stages_ms.index(max(stages_ms))
    per_item = [t / (workers if i == b else 1) for i, t in enumerate(stages_ms)]
    slowest = max(per_item)
    rate = 1000 / slowest
    others = [i + 1 for i, t in enumerate(per_item) if t == slowest and i != b]  # 1-based stage numbers
    if not others:
        moved = f"여전히 {b + 1}번째 단계가 병목이므로 작업자를 더 늘리면 더 빨라진다."
    else:
        moved = (
            f"이제 {', '.join(f'{i}번째' for i in others)} 단계가 병목이므로 {b + 1}번째 단계에 작업자를 더 "
            "늘려도 처리량은 이 값을 넘지 못한다."
        )
    return Drill(
        id="drill-pipeline-parallel-" + "-".join(str(t) for t in stages_ms) + f"-w{workers}",
        topic=TOPIC,
        checklist=("pipeline-bottleneck",),
        prompt=f"단계별 처리 시간이 {_ms(list(stages_ms))}인 파이프라인에서 가장 느린 단계에만 작업자 {workers}명을 "
        f"두어 병렬 처리하면 처리량은 몇 items/s인가? ({_DECIMALS_NOTE[1]})",
        answer=rate,
        tolerance=_tolerance(1),
        unit="items/s",
        explanation=(
            f"{stages_ms[b]:g} ms 단계에 작업자 {workers}명 → {_fmt(per_item[b], 2)} ms/item. 이제 단계별 시간은 "
            f"{', '.join(f'{t:.4g}' for t in per_item)} ms이고 가장 느린 단계가 {slowest:.4g} ms이므로 "
            f"처리량 = 1000 / {slowest:.4g} ≈ {_fmt(rate, 1)} items/s. {moved}"
        ),
    )


# ---------------------------------------------------------------------------------------------
# The bank
# ---------------------------------------------------------------------------------------------


def all_drills() -> list[Drill]:
    """The fixed bank, in a stable order (about 30 drills)."""
    drills = [
        amdahl_speedup(p, n)
        for p, n in ((90, 8), (95, 16), (80, 4), (75, 2), (50, 8), (99, 100), (90, 16), (60, 4))
    ]
    drills += [amdahl_limit(p) for p in (90, 95, 80, 85)]
    drills += [amdahl_efficiency(p, n) for p, n in ((90, 8), (80, 4), (95, 32), (75, 16))]
    drills += [karp_flatt(s, n) for s, n in ((550, 8), (300, 4), (160, 2), (1000, 16), (450, 8))]
    drills += [gustafson(s, n) for s, n in ((10, 8), (5, 16), (20, 4), (30, 32))]
    drills += [pipeline_throughput(t) for t in ((5, 20, 10), (8, 12, 4, 6), (15, 15, 30), (2, 5, 3))]
    drills += [pipeline_parallel(t, k) for t, k in (((5, 20, 10), 2), ((10, 40, 25), 2), ((30, 10, 12), 3))]
    return drills


# ---------------------------------------------------------------------------------------------
# Grading
# ---------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_PREFIXES = ("약", "≈", "~", "=", "대략")
_UNITS = ("items/s", "item/s", "개/s", "개/초", "/s", "배", "x", "×")


def parse_answer(text: str, unit: str = "") -> float | None:
    """The number in a typed answer, or None if there is no single number.

    Accepts "5.9", "5,9" (a decimal comma), "5.9배", " 5.93 ", "약 5.93", full-width digits, and a
    trailing "%": for a drill whose unit is not "%", "59%" means 0.59. "1,234.5" reads as 1234.5.
    """
    s = unicodedata.normalize("NFKC", text).strip()
    for prefix in _PREFIXES:
        if s.startswith(prefix):
            s = s[len(prefix) :].strip()
    percent = False
    changed = True
    while changed:  # strip units and "%" from the end, in any order ("59 %", "5.9 배")
        changed = False
        for suffix in (unit, *_UNITS, "%"):
            if suffix and s.endswith(suffix):
                percent = percent or suffix == "%"
                s = s[: -len(suffix)].strip()
                changed = True
    if "," in s:
        if "." in s:
            s = s.replace(",", "")  # thousands separators
        elif s.count(",") == 1:
            s = s.replace(",", ".")  # a decimal comma
        else:
            return None
    if not _NUMBER.fullmatch(s):
        return None
    value = float(s)
    return value / 100 if percent and unit != "%" else value


def grade(drill: Drill, text: str) -> bool | None:
    """True if the answer is within the drill's tolerance, False if not, None if it is not a number."""
    value = parse_answer(text, drill.unit)
    if value is None:
        return None
    return abs(value - drill.answer) <= drill.tolerance * (1 + 1e-9)
