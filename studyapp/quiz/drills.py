"""Calculation drills: numeric questions on Amdahl's law, pipelines, Little's law, the critical
path of a task graph, regression metrics and AUC.

Each drill is answered with a number and graded within an absolute tolerance. The bank is fixed
and deterministic, so a drill's id is stable and progress can be keyed by it like an O/X item.
The parameters are written into the id, so anyone (a test, a curious learner) can recompute the
answer from the id alone:

    drill-amdahl-speedup-{P}-{N}        parallel fraction P %, N workers: 1 / ((1 - P) + P / N)
    drill-amdahl-limit-{P}              parallel fraction P %: 1 / (1 - P)
    drill-amdahl-efficiency-{P}-{N}     Amdahl speedup / N (a value between 0 and 1)
    drill-karp-flatt-{S100}-{N}         measured speedup S100 / 100 on N workers: (1/S - 1/N) / (1 - 1/N)
    drill-gustafson-{s}-{N}             serial fraction s % of the scaled N-worker run: N - s (N - 1)
    drill-pipeline-throughput-{a}-{b}-...        stage times in ms: 1000 / max
    drill-pipeline-parallel-{a}-{b}-...-w{k}     the slowest stage gets k workers: 1000 / max(t_i / k_i)
    drill-pipeline-fill-{a}-{b}-...-n{N}         N items through the stages, in ms: sum + (N - 1) max
    drill-little-{λ}-{W}                items in the system, λ per second staying W ms: λ W / 1000
    drill-critical-path-{a30}-{b20a}-...         task letter, time in ms, the letters it waits for:
                                                 the longest path through the graph (critical path)
    drill-mae-{e1}-{e2}-...             residuals (m for minus: m4 is −4): mean |e|
    drill-rmse-{e1}-{e2}-...            residuals: √(mean e²)
    drill-r-squared-y{y1}-...-p{ŷ1}-... actual and predicted values: 1 − Σ(y − ŷ)² / Σ(y − ȳ)²
    drill-auc-p{s1}-...-n{s1}-...       scores ×100 of the positives, then the negatives: the share of
                                        (positive, negative) pairs ranked right, a tie counting ½

The parameters are chosen so that no drill repeats the numbers of an O/X item of its topic
(a learner who met the item would get the drill for free):
e.g. the items use Amdahl's limit for 90 %, Gustafson 10 % on 8, Karp–Flatt 1.6 on 2 and the
5/20/10 ms pipeline (its 50 items/s, its doubled middle stage), so the drills do not.

Standard library only: the quiz path must not import numpy, torch or Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from studyapp.quiz.numbers import parse_number, within

TOPIC = "bottleneck-analysis"
ERRORS_TOPIC = "error-decomposition"  # regression metrics and AUC


@dataclass(frozen=True)
class Drill:
    id: str  # stable, parameters included (see the module docstring)
    topic: str
    checklist: tuple[str, ...]
    prompt: str  # Korean
    answer: float
    tolerance: float  # absolute
    unit: str  # "배", "", "items/s", "ms", "건"
    explanation: str  # Korean, the formula with the numbers substituted


# Answers are asked to a number of decimals; the tolerance is one unit of the last decimal, so
# both a rounded and a truncated answer pass. The price is that a neighbour one unit away can pass
# too (2.49 or 2.51 for an exact 2.5, 9.15 for 9.1429); the method errors the drills target (P × N,
# 1000 / Σ stages, Amdahl's formula for Gustafson, ignoring the new bottleneck) are all far outside.
_DECIMALS_NOTE = {0: "정수로", 1: "소수 첫째 자리까지", 2: "소수 둘째 자리까지", 3: "소수 셋째 자리까지"}


def _tolerance(decimals: int) -> float:
    return 10.0**-decimals


def _pct(value: int) -> str:
    return f"{value} %"


def _fmt(x: float, decimals: int) -> str:
    """x rounded the way people round on paper (0.625 -> 0.63), unlike format()'s half-to-even."""
    return str(Decimal(repr(round(x, 9))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def _approx(x: float, decimals: int) -> str:
    """'= 10.00' when the rounded value is exact, '≈ 4.71' when it is not."""
    shown = _fmt(x, decimals)
    return f"= {shown}" if abs(float(shown) - x) < 1e-9 else f"≈ {shown}"


def _one_over(x: float) -> str:
    """'= 1 / 0.15625' when x has at most 5 decimals, '≈ 1 / 0.1094' when it is rounded: an '=' after
    a rounded divisor would claim 1 / 0.1563 = 6.40 (review B D5)."""
    for decimals in range(1, 6):
        if abs(round(x, decimals) - x) < 1e-12:
            return f"= 1 / {_fmt(x, decimals)}"
    return f"≈ 1 / {_fmt(x, 4)}"


# ---------------------------------------------------------------------------------------------
# Drill makers: one per kind. Each computes the answer and writes the worked explanation.
# ---------------------------------------------------------------------------------------------


def _amdahl(parallel_pct: int, workers: int) -> float:
    p = parallel_pct / 100
    return 1 / ((1 - p) + p / workers)


def amdahl_speedup(parallel_pct: int, workers: int) -> Drill:
    p = parallel_pct / 100
    s = _amdahl(parallel_pct, workers)
    denominator = (1 - p) + p / workers
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
            f"{_one_over(denominator)} {_approx(s, 2)}배. 순차 구간 {_pct(100 - parallel_pct)}는 작업자 수와 "
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
            f"N → ∞이면 P/N → 0이므로 S → 1 / (1 − P) = 1 / {_fmt(serial, 2)} {_approx(limit, 2)}배. "
            "순차 비율의 역수가 병렬화의 한계다."
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
            f"S = 1 / ({_fmt(1 - p, 2)} + {_fmt(p, 2)}/{workers}) {_approx(s, 2)}배, 효율 E = S / N = {_fmt(s, 2)} / {workers} {_approx(e, 2)}. "
            "작업자를 늘릴수록 효율은 떨어진다."
        ),
    )


def _karp_flatt_e(speedup_x100: int, workers: int) -> float:
    s = speedup_x100 / 100
    return (1 / s - 1 / workers) / (1 - 1 / workers)


def karp_flatt(speedup_x100: int, workers: int, same_e: tuple[tuple[int, int], ...] = ()) -> Drill:
    """same_e: other (speedup_x100, workers) measurements of the bank with the same e, to link them."""
    s = speedup_x100 / 100
    e = _karp_flatt_e(speedup_x100, workers)
    if same_e:
        others = ", ".join(f"작업자 {n}명에서 {x / 100:g}배" for x, n in same_e)
        lesson = (
            f"같은 e가 다른 작업자 수에서도 나온다({others}). 작업자를 늘려도 e가 일정하면 한계는 병렬화 "
            "오버헤드가 아니라 고정된 순차 구간이다."
        )
    else:
        lesson = "N이 커질 때 e가 커지면 순차 코드보다 병렬화 오버헤드(통신·동기화·부하 불균형)가 문제다."
    return Drill(
        id=f"drill-karp-flatt-{speedup_x100}-{workers}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"작업자 N = {workers}명으로 실행했더니 {s:g}배 빨라졌다. Karp–Flatt 지표로 추정한 순차 비율 e는? "
        f"(0–1 사이 값, {_DECIMALS_NOTE[3]})",
        answer=e,
        tolerance=_tolerance(3),
        unit="",
        explanation=(
            f"e = (1/S − 1/N) / (1 − 1/N) = (1/{s:g} − 1/{workers}) / (1 − 1/{workers}) "
            f"= ({_fmt(1 / s, 4)} − {_fmt(1 / workers, 4)}) / {_fmt(1 - 1 / workers, 4)} {_approx(e, 3)}. "
            f"Amdahl의 법칙을 순차 비율에 대해 푼 식이다. {lesson}"
        ),
    )


def gustafson(serial_pct: int, workers: int) -> Drill:
    s = serial_pct / 100
    speedup = workers - s * (workers - 1)
    return Drill(
        id=f"drill-gustafson-{serial_pct}-{workers}",
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"작업자 {workers}명으로 문제 크기를 키워 실행할 때 그 병렬 실행 시간 중 순차 구간이 {_pct(serial_pct)}라면 "
        f"Gustafson의 법칙에 따른 확장 속도 향상(scaled speedup)은? ({_DECIMALS_NOTE[2]})",
        answer=speedup,
        tolerance=_tolerance(2),
        unit="배",
        explanation=(
            f"Gustafson의 법칙: S = N − s(N − 1) = {workers} − {_fmt(s, 2)} × {workers - 1} {_approx(speedup, 2)}배. "
            f"문제 크기를 고정하는 Amdahl과 달리 작업량이 작업자 수에 맞춰 늘어나므로, S는 N에 대해 선형으로 "
            f"커지고 그 기울기는 (1 − s) = {_fmt(1 - s, 2)}이다. s는 작업자 1명 실행 기준인 Amdahl의 순차 비율과 다르다."
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
        f"단계들은 동시에 실행). 정상 상태 처리량은 초당 몇 개인가? (items/s, {_DECIMALS_NOTE[1]})",
        answer=rate,
        tolerance=_tolerance(1),
        unit="items/s",
        explanation=(
            f"처리량 = 1 / 가장 느린 단계 = 1 / {slowest:g} ms = 1000 / {slowest:g} {_approx(rate, 1)} items/s. "
            f"단계 시간의 합({sum(stages_ms):g} ms)은 한 항목의 지연 시간(latency)이지 처리량을 정하지 않는다."
        ),
    )


def pipeline_parallel(stages_ms: tuple[int, ...], workers: int) -> Drill:
    b = stages_ms.index(max(stages_ms))
    per_item = [t / (workers if i == b else 1) for i, t in enumerate(stages_ms)]
    slowest = max(per_item)
    rate = 1000 / slowest
    bottlenecks = [i + 1 for i, t in enumerate(per_item) if t == slowest]  # 1-based stage numbers
    others = [i for i in bottlenecks if i != b + 1]
    if not others:
        moved = f"여전히 {b + 1}번째 단계가 병목이므로 작업자를 더 늘리면 더 빨라진다."
    else:
        names = "·".join(str(i) for i in bottlenecks)
        together = "함께 " if len(bottlenecks) > 1 else ""
        moved = (
            f"이제 {names}번째 단계가 {together}병목({slowest:.4g} ms)이므로 {b + 1}번째 단계에 작업자를 더 "
            "늘려도 처리량은 이 값을 넘지 못한다."
        )
    return Drill(
        id="drill-pipeline-parallel-" + "-".join(str(t) for t in stages_ms) + f"-w{workers}",
        topic=TOPIC,
        checklist=("pipeline-bottleneck",),
        prompt=f"단계별 처리 시간이 {_ms(list(stages_ms))}인 파이프라인에서 가장 느린 단계에만 작업자 {workers}명을 "
        f"두어 병렬 처리하면(다른 단계는 작업자 1명, 단계들은 동시에 실행) 정상 상태 처리량은 초당 몇 개인가? "
        f"(items/s, {_DECIMALS_NOTE[1]})",
        answer=rate,
        tolerance=_tolerance(1),
        unit="items/s",
        explanation=(
            f"{stages_ms[b]:g} ms 단계에 작업자 {workers}명 → {_fmt(per_item[b], 2)} ms/item. 이제 단계별 시간은 "
            f"{', '.join(f'{t:.4g}' for t in per_item)} ms이고 가장 느린 단계가 {slowest:.4g} ms이므로 "
            f"처리량 = 1000 / {slowest:.4g} {_approx(rate, 1)} items/s. {moved}"
        ),
    )


def pipeline_fill(stages_ms: tuple[int, ...], items: int) -> Drill:
    """Makespan of `items` items through a line of single-worker stages (all items waiting at t = 0).

    The last item leaves after the first one has crossed every stage (the fill time, the sum) and
    the other items - 1 have each taken one turn at the slowest stage: sum + (items - 1) * max.
    """
    fill = sum(stages_ms)
    slowest = max(stages_ms)
    total = fill + (items - 1) * slowest
    return Drill(
        id="drill-pipeline-fill-" + "-".join(str(t) for t in stages_ms) + f"-n{items}",
        topic=TOPIC,
        checklist=("pipeline-bottleneck",),
        prompt=f"단계별 처리 시간이 {_ms(list(stages_ms))}인 파이프라인(단계마다 작업자 1명, 단계 사이 큐는 "
        f"충분히 큼)에 항목 {items}개가 처음부터 모두 대기하고 있다. 마지막 항목이 끝날 때까지 몇 ms가 "
        f"걸리는가? ({_DECIMALS_NOTE[0]})",
        answer=float(total),
        tolerance=_tolerance(0),
        unit="ms",
        explanation=(
            f"첫 항목이 모든 단계를 지나는 채움 시간 {' + '.join(str(t) for t in stages_ms)} = {fill} ms 뒤에, "
            f"나머지 {items - 1}개가 가장 느린 {slowest} ms 단계의 속도로 하나씩 나온다: "
            f"{fill} + {items - 1} × {slowest} = {total} ms. 평균 처리량 {items} / {total / 1000:g} s "
            f"{_approx(items * 1000 / total, 1)} items/s는 정상 상태 1000 / {slowest} {_approx(1000 / slowest, 1)} "
            "items/s보다 낮고, 항목이 많을수록 그 값에 다가간다."
        ),
    )


def little(arrivals_per_s: int, stay_ms: int) -> Drill:
    """Little's law, L = λ W, with W given in ms."""
    in_system = arrivals_per_s * stay_ms / 1000
    return Drill(
        id=f"drill-little-{arrivals_per_s}-{stay_ms}",
        topic=TOPIC,
        checklist=("pipeline-bottleneck",),
        prompt=f"안정 상태의 서비스에 요청이 초당 {arrivals_per_s}건 도착하고, 요청 하나가 평균 {stay_ms} ms 동안 "
        f"머문다. 리틀의 법칙에 따르면 서비스 안에 머무는 요청은 평균 몇 건인가? ({_DECIMALS_NOTE[1]})",
        answer=in_system,
        tolerance=_tolerance(1),
        unit="건",
        explanation=(
            f"리틀의 법칙 L = λW = {arrivals_per_s}건/s × {stay_ms / 1000:g} s {_approx(in_system, 1)}건. "
            "W는 초로 바꿔 곱한다. 같은 식으로 동시 요청 수와 처리량을 재면 평균 응답 시간 W = L / λ를 구할 수 있다."
        ),
    )


def _signed(value: float) -> str:
    """`−4` with the minus sign typeset, `3` as is."""
    return f"−{-value:g}" if value < 0 else f"{value:g}"


def _id_numbers(values: tuple[int, ...]) -> str:
    """Residuals in an id: `m` for minus, so `-` stays the separator (2, −1 → `2-m1`)."""
    return "-".join(f"m{-v}" if v < 0 else str(v) for v in values)


def critical_path(tasks: tuple[tuple[str, int, str], ...]) -> Drill:
    """The shortest time a task graph can finish in with as many workers as it can use: the
    longest chain of waiting tasks. `tasks`: (letter, time in ms, the letters it waits for), each
    task after the ones it waits for."""
    finish: dict[str, int] = {}
    before: dict[str, str | None] = {}  # the predecessor that finishes last: the path back
    steps = []
    for name, time_ms, waits_for in tasks:
        start = max((finish[w] for w in waits_for), default=0)
        before[name] = max(waits_for, key=lambda w: finish[w]) if waits_for else None
        finish[name] = start + time_ms
        if len(waits_for) > 1:
            starts = ", ".join(f"{finish[w]}({w.upper()})" for w in waits_for)
            steps.append(f"{name.upper()}: max({starts}) + {time_ms} = {finish[name]}")
        elif waits_for:
            steps.append(f"{name.upper()}: {start}({waits_for.upper()}) + {time_ms} = {finish[name]}")
        else:
            steps.append(f"{name.upper()}: {time_ms}")
    last = max(finish, key=lambda n: finish[n])
    path: list[str] = []
    node: str | None = last
    while node is not None:
        path.append(node.upper())
        node = before[node]
    length = finish[last]
    serial = sum(time_ms for _, time_ms, _ in tasks)
    graph = ", ".join(
        f"{n.upper()} {t} ms" + (f"({'·'.join(w.upper() for w in waits)} 다음)" if waits else "")
        for n, t, waits in tasks
    )
    return Drill(
        id="drill-critical-path-" + "-".join(f"{n}{t}{waits}" for n, t, waits in tasks),
        topic=TOPIC,
        checklist=("amdahl",),
        prompt=f"작업과 소요 시간, 선행 작업이 다음과 같다: {graph}. 작업자가 충분히 많아 선행 작업이 끝난 "
        f"작업은 곧바로 시작할 수 있을 때, 모든 작업을 마치는 데 걸리는 최소 시간(임계 경로의 길이)은 몇 "
        f"ms인가? ({_DECIMALS_NOTE[0]})",
        answer=float(length),
        tolerance=_tolerance(0),
        unit="ms",
        explanation=(
            f"각 작업이 가장 일찍 끝나는 시각 = 선행 작업 중 가장 늦게 끝나는 시각 + 자기 시간: "
            f"{'; '.join(steps)}. 가장 늦게 끝나는 작업까지 거꾸로 따라가면 임계 경로 "
            f"{' → '.join(reversed(path))} = {length} ms이다. 모든 작업 시간의 합 {serial} ms는 작업자 1명일 때의 "
            f"시간이고, 작업자를 아무리 늘려도 임계 경로보다 빨라질 수 없으므로 속도 향상은 최대 "
            f"{serial} / {length} {_approx(serial / length, 2)}배다. 임계 경로 밖 작업을 줄여도 전체 시간은 줄지 않는다."
        ),
    )


def mae(residuals: tuple[int, ...]) -> Drill:
    value = sum(abs(e) for e in residuals) / len(residuals)
    shown = ", ".join(_signed(e) for e in residuals)
    return Drill(
        id=f"drill-mae-{_id_numbers(residuals)}",
        topic=ERRORS_TOPIC,
        checklist=("bias-variance",),
        prompt=f"회귀 모델의 잔차(실제값 − 예측값)가 {shown}이다. 평균 절대 오차(MAE)는? ({_DECIMALS_NOTE[2]})",
        answer=value,
        tolerance=_tolerance(2),
        unit="",
        explanation=(
            f"MAE = Σ|e| / n = ({' + '.join(str(abs(e)) for e in residuals)}) / {len(residuals)} "
            f"{_approx(value, 2)}. 부호를 없애고 평균하므로 양의 오차와 음의 오차가 상쇄되지 않는다(잔차를 그대로 "
            f"평균하면 {_fmt(sum(residuals) / len(residuals), 2)}). 오차의 크기에 비례해 반영하므로 MSE·RMSE보다 "
            "이상치에 덜 민감하고, 단위는 목표값과 같다."
        ),
    )


def rmse(residuals: tuple[int, ...]) -> Drill:
    mse = sum(e * e for e in residuals) / len(residuals)
    value = mse**0.5
    mean_abs = sum(abs(e) for e in residuals) / len(residuals)
    shown = ", ".join(_signed(e) for e in residuals)
    if abs(value - mean_abs) < 1e-9:
        lesson = "모든 잔차의 크기가 같으면 RMSE는 MAE와 같고, 크기가 고르지 않을수록 RMSE가 MAE보다 커진다."
    else:
        lesson = (
            f"같은 잔차로 구한 MAE({_fmt(mean_abs, 2)})보다 크다: 오차를 제곱해 평균하므로 큰 오차(이상치)가 "
            "더 크게 반영되어 늘 RMSE ≥ MAE이고, 큰 오차 하나가 RMSE를 끌어올린다."
        )
    return Drill(
        id=f"drill-rmse-{_id_numbers(residuals)}",
        topic=ERRORS_TOPIC,
        checklist=("bias-variance",),
        prompt=f"회귀 모델의 잔차(실제값 − 예측값)가 {shown}이다. 평균 제곱근 오차(RMSE)는? ({_DECIMALS_NOTE[2]})",
        answer=value,
        tolerance=_tolerance(2),
        unit="",
        explanation=(
            f"MSE = Σe² / n = ({' + '.join(str(e * e) for e in residuals)}) / {len(residuals)} "
            f"{_approx(mse, 2)}, RMSE = √MSE {_approx(value, 2)}. 제곱근을 씌워 단위를 목표값과 맞춘 것이다. {lesson}"
        ),
    )


def r_squared(actual: tuple[int, ...], predicted: tuple[int, ...]) -> Drill:
    mean = sum(actual) / len(actual)
    ss_res = sum((y - p) ** 2 for y, p in zip(actual, predicted, strict=True))
    ss_tot = sum((y - mean) ** 2 for y in actual)
    value = 1 - ss_res / ss_tot
    if value < 0:
        lesson = "R²가 음수이면 이 모델은 늘 평균 ȳ만 내놓는 모델보다도 못하다. R²는 0–1 사이로 정해진 값이 아니다."
    else:
        lesson = (
            f"목표값의 분산 중 {_fmt(value * 100, 0)} %를 모델이 설명한다는 뜻이다(평균만 내놓는 모델은 0)."
        )
    return Drill(
        id="drill-r-squared-y" + "-".join(map(str, actual)) + "-p" + "-".join(map(str, predicted)),
        topic=ERRORS_TOPIC,
        checklist=("bias-variance",),
        prompt=f"실제값이 {', '.join(map(str, actual))}이고 회귀 모델의 예측값이 차례로 "
        f"{', '.join(map(str, predicted))}이다. 결정 계수 R²는? ({_DECIMALS_NOTE[2]})",
        answer=value,
        tolerance=_tolerance(2),
        unit="",
        explanation=(
            f"R² = 1 − SS_res / SS_tot. 평균 ȳ = {mean:g}, SS_tot = Σ(y − ȳ)² = {ss_tot:g}, "
            f"SS_res = Σ(y − ŷ)² = {ss_res:g}이므로 R² = 1 − {ss_res:g} / {ss_tot:g} {_approx(value, 2)}. {lesson}"
        ),
    )


def auc(positives: tuple[int, ...], negatives: tuple[int, ...]) -> Drill:
    """ROC AUC by its ranking meaning, scores given ×100 (`90` is 0.90)."""
    wins = sum(1 for p in positives for n in negatives if p > n)
    ties = sum(1 for p in positives for n in negatives if p == n)
    pairs = len(positives) * len(negatives)
    value = (wins + 0.5 * ties) / pairs

    def scores(values: tuple[int, ...]) -> str:
        return ", ".join(f"{v / 100:.2f}" for v in values)

    return Drill(
        id="drill-auc-p" + "-".join(map(str, positives)) + "-n" + "-".join(map(str, negatives)),
        topic=ERRORS_TOPIC,
        checklist=("imbalance-detection",),
        prompt=f"분류기가 양성 샘플 {len(positives)}개에 {scores(positives)}, 음성 샘플 {len(negatives)}개에 "
        f"{scores(negatives)}의 점수를 주었다. ROC AUC는? (동점인 쌍은 ½로 셈, {_DECIMALS_NOTE[2]})",
        answer=value,
        tolerance=_tolerance(2),
        unit="",
        explanation=(
            f"AUC는 무작위로 고른 양성이 무작위로 고른 음성보다 높은 점수를 받을 확률이다(동점은 ½). (양성, 음성) 쌍 "
            f"{len(positives)} × {len(negatives)} = {pairs}개 중 양성이 높은 쌍 {wins}개, 동점 {ties}개이므로 "
            f"AUC = ({wins} + ½ × {ties}) / {pairs} {_approx(value, 2)}. 임계값을 하나도 정하지 않고 순위만으로 "
            "구하며, 무작위 분류기는 0.5, 양성을 모두 음성보다 높게 매기면 1이다."
        ),
    )


# ---------------------------------------------------------------------------------------------
# The bank
# ---------------------------------------------------------------------------------------------


def all_drills() -> list[Drill]:
    """The fixed bank, in a stable order (about 50 drills)."""
    drills = [
        amdahl_speedup(p, n)
        for p, n in ((90, 8), (95, 16), (80, 4), (70, 2), (50, 8), (99, 100), (90, 16), (60, 4))
    ]
    drills += [amdahl_limit(p) for p in (88, 95, 80, 85)]
    drills += [amdahl_efficiency(p, n) for p, n in ((90, 8), (80, 4), (95, 32), (75, 16))]
    measured = ((550, 8), (300, 4), (170, 2), (1000, 16), (450, 8))
    drills += [
        karp_flatt(s, n, tuple(m for m in measured if m != (s, n) and _same_e(m, (s, n))))
        for s, n in measured
    ]
    drills += [gustafson(s, n) for s, n in ((15, 8), (5, 16), (20, 4), (30, 32))]
    drills += [pipeline_throughput(t) for t in ((6, 25, 10), (8, 12, 4, 6), (15, 15, 30), (2, 5, 3))]
    drills += [pipeline_parallel(t, k) for t, k in (((5, 30, 15), 3), ((10, 40, 25), 2), ((30, 10, 12), 3))]
    drills += [pipeline_fill(t, n) for t, n in (((4, 12, 6), 50), ((10, 25, 15), 20), ((3, 8, 5, 2), 10))]
    drills += [little(lam, w) for lam, w in ((120, 75), (64, 90), (30, 500))]
    drills += [
        critical_path(graph)
        for graph in (
            (("a", 30, ""), ("b", 20, "a"), ("c", 45, "a"), ("d", 10, "bc"), ("e", 25, "b")),
            (("a", 10, ""), ("b", 40, "a"), ("c", 15, "a"), ("d", 20, "c"), ("e", 25, "bd"), ("f", 5, "e")),
            (("a", 20, ""), ("b", 35, ""), ("c", 15, "a"), ("d", 30, "ab"), ("e", 10, "cd")),
        )
    ]
    drills += [mae(e) for e in ((2, -1, 0, 3, -4), (1, -2, 1, -1, 6), (-3, 1, -2, 5))]
    drills += [rmse(e) for e in ((2, -1, 0, 3, -4), (1, -1, 1, -1, 8), (9, -9, -9, 9))]
    drills += [
        r_squared(y, p)
        for y, p in (
            ((3, 5, 7, 9), (2, 5, 8, 9)),
            ((2, 4, 6, 8, 10), (3, 5, 5, 9, 8)),
            ((1, 3, 5, 7), (4, 2, 6, 3)),
        )
    ]
    drills += [
        auc(p, n)
        for p, n in (
            ((90, 80, 40), (70, 40, 20)),
            ((60, 55, 30, 90), (50, 65, 10)),
            ((70, 50, 50), (50, 50, 30, 80)),
        )
    ]
    return drills


def _same_e(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two measurements whose Karp–Flatt e agrees to the three decimals the drill asks for."""
    return _fmt(_karp_flatt_e(*a), 3) == _fmt(_karp_flatt_e(*b), 3)


# ---------------------------------------------------------------------------------------------
# Grading
# ---------------------------------------------------------------------------------------------


def grade(drill: Drill, text: str) -> bool | None:
    """True if the typed answer is within the drill's tolerance, False if not, None if it is not a
    number. Typed answers are read by studyapp.quiz.numbers (fractions, `%`, `1,000`, units), the
    one reader the TUI, `--plain` and the exam share."""

    value = parse_number(text, drill.unit)
    return None if value is None else within(value, drill.answer, drill.tolerance)
