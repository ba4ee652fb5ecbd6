"""Trace-reading questions: a compact excerpt of a real trace and a question whose key is computed.

Each template turns the facts of one trace (studyapp/content/traces.py) into a question a learner
answers by reading the excerpt the way an examiner expects: total vs self time, calls × mean,
idle gaps on the GPU, the share of communication kernels, which events the profiler wrote, what
`torch.compile` took away, and the CPU and GPU time of one op linked by correlation ids. A
template that the trace cannot support cleanly (too few rows, a near tie) makes no question, so
no key is ever a coin flip. A question fits the quiz screen at 80×24 whole: its statement box
holds 72 columns and 14 rows for the question, the excerpt and the options (`problems`).
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from studyapp.content.problems import Problem
from studyapp.content.traces import (
    MANIFEST,
    TRACES_DIR,
    OpOnBothSides,
    Row,
    TraceFacts,
    TraceProblem,
    all_facts,
    read_manifest,
    trace_facts,
)
from studyapp.content.yamlfile import FileProblem

MARGIN = 1.05  # the key beats the runner-up by 5 % at least: never a near tie
NAME_WIDTH = 40
# The quiz screen's statement box at 80×24 (studyapp/tui/screens/quiz.py, app.tcss): 80 columns
# less the margin, border and padding; 24 rows less the title, its rule, the box's frame, the hint
# and the key bar. Measured on the screen by tests/tui/test_trace_screen.py.
WIDTH = 72
SCREEN_ROWS = 14
MAX_LINES = 8  # an excerpt never takes more than this, whatever the question around it


@dataclass(frozen=True)
class TraceQuestion:
    id: str
    topic: str
    trace_id: str
    template: str
    prompt: str
    excerpt: tuple[str, ...]
    options: tuple[str, ...] = ()  # a pick: the options, key among them
    key: int | None = None  # the 0-based index of the key in `options`
    number: float | None = None  # a number to type instead
    tolerance: float = 0.0  # absolute, in the number's unit
    unit: str = ""
    explanation: str = ""
    source: str = ""
    digest: str = ""

    @property
    def answer_text(self) -> str:
        if self.key is not None:
            return f"{self.key + 1}) {self.options[self.key]}"
        return f"{self.number:g}{self.unit}"


def display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _fit(text: str, width: int, from_end: bool = False) -> str:
    out = ""
    for ch in reversed(text) if from_end else text:
        if display_width(out + ch) > width:
            break
        out = ch + out if from_end else out + ch
    return out


def clip(text: str, width: int = NAME_WIDTH) -> str:
    """A long name kept readable and distinct: its head and its tail around an ellipsis (kernel
    names differ at the end: `…_cta_per_row_1` vs `…_warp_per_row_1`)."""
    if display_width(text) <= width:
        return text
    tail = _fit(text, (width - 1) // 3, from_end=True)
    return _fit(text, width - 1 - display_width(tail)) + "…" + tail


def pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * max(0, width - display_width(text))
    return gap + text if right else text + gap


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """A plain text table: the first column left-aligned, numbers right-aligned."""
    cells = [list(header), *[list(row) for row in rows]]
    widths = [max(display_width(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for row in cells:
        parts = [pad(row[0], widths[0])] + [
            pad(cell, widths[i], right=True) for i, cell in enumerate(row[1:], 1)
        ]
        lines.append("  ".join(parts).rstrip())
    return tuple(lines)


def side_by_side(left: Sequence[str], right: Sequence[str]) -> tuple[str, ...]:
    """Two tables next to each other, so a comparison takes the rows of one (80×24)."""
    width = max(display_width(line) for line in left)
    rows = max(len(left), len(right))
    padded_left = [*left, *[""] * (rows - len(left))]
    padded_right = [*right, *[""] * (rows - len(right))]
    return tuple(
        f"{pad(one, width)} │ {other}".rstrip() for one, other in zip(padded_left, padded_right, strict=True)
    )


def wrapped_rows(text: str, width: int = WIDTH) -> int:
    """How many rows `text` takes when wrapped at spaces to `width` cells (as the screen wraps it)."""
    rows = 0
    for paragraph in text.split("\n"):
        rows += 1
        used = 0
        for word in paragraph.split(" "):
            size = display_width(word)
            if used and used + 1 + size > width:
                rows += 1
                used = size
            else:
                used += size + (1 if used else 0)
            while used > width:  # a word longer than the row breaks inside it
                rows += 1
                used -= width
    return rows


def _ms(us: float) -> str:
    return f"{us / 1000:,.2f}"


def _us(us: float) -> str:
    return f"{us:,.0f}"


def other_mean(row: Row) -> str:
    return f"{row.mean_us:,.1f}"


def _shuffled(key: str, others: Sequence[str], rng: random.Random) -> tuple[tuple[str, ...], int]:
    options = [key, *others]
    rng.shuffle(options)
    return tuple(options), options.index(key)


def _clear_winner(values: Sequence[float]) -> bool:
    ordered = sorted(values, reverse=True)
    return len(ordered) >= 2 and ordered[0] > 0 and ordered[0] >= MARGIN * ordered[1]


def _question(facts: TraceFacts, template: str, **fields: object) -> TraceQuestion:
    """A template's question, with what every question of `facts` shares: its id, topic and source."""
    return TraceQuestion(
        id=f"trace-{facts.trace.id}-{template}",
        topic=facts.trace.topic,
        trace_id=facts.trace.id,
        template=template,
        source=facts.trace.source,
        digest=facts.digest,
        **fields,  # type: ignore[arg-type]
    )


def _intro(facts: TraceFacts) -> str:
    return f"[트레이스: {facts.trace.title}]"


# -- templates: each yields at most one question -------------------------------------------------


def top_kernel(facts: TraceFacts, rng: random.Random) -> Iterator[TraceQuestion]:
    """Calls × mean: the kernel with the most GPU time is not the one with the longest mean or
    the most calls."""
    rows = [row for row in facts.kernels if row.calls][:6]
    if len(rows) < 4 or not _clear_winner([row.total_us for row in rows]):
        return
    key = rows[0]
    shown = sorted(rows, key=lambda row: row.name)
    excerpt = table(
        ("GPU 커널", "호출 수", "평균(µs)"),
        [(clip(row.name), str(row.calls), f"{row.mean_us:,.1f}") for row in shown],
    )
    options, index = _shuffled(clip(key.name), [clip(row.name) for row in rows[1:4]], rng)
    by_mean = max(rows, key=lambda row: row.mean_us)
    by_calls = max(rows, key=lambda row: row.calls)
    lessons = [
        f"{clip(other.name)}은 {label}({value}) 합계는 {other.total_us:,.0f} µs이다"
        for other, label, value in (
            (by_mean, "평균이 가장 길지만", f"{other_mean(by_mean)} µs"),
            (by_calls, "호출이 가장 많지만", f"{by_calls.calls}회"),
        )
        if other is not key
    ]
    yield _question(
        facts,
        "top-kernel",
        prompt=f"{_intro(facts)} 다음 발췌에서 GPU 시간을 합계로 가장 많이 쓴 커널은?",
        excerpt=excerpt,
        options=options,
        key=index,
        explanation=" ".join(
            [
                f"합계 = 호출 수 × 평균이다. {clip(key.name)}은 {key.calls}회 × {key.mean_us:,.1f} µs = "
                f"{key.total_us:,.0f} µs로 가장 크다.",
                *(f"{lesson}." for lesson in lessons),
                "병목은 한 번이 긴 커널이나 자주 불리는 커널이 아니라 합계가 큰 커널이다.",
            ]
        ),
    )


def top_self_op(facts: TraceFacts, rng: random.Random) -> Iterator[TraceQuestion]:
    """Self vs total: a wrapper op's total holds its children's time."""
    rows = list(facts.cpu_ops[:6])
    if len(rows) < 4:
        return
    by_self = sorted(rows, key=lambda row: -row.self_us)
    if not _clear_winner([row.self_us for row in rows]) or by_self[0].name == rows[0].name:
        return
    key = by_self[0]
    excerpt = table(
        ("연산", "호출 수", "전체(ms)", "자기(ms)"),
        [(clip(row.name), str(row.calls), _ms(row.total_us), _ms(row.self_us)) for row in rows],
    )
    others = [rows[0].name, *[row.name for row in by_self[1:] if row.name != rows[0].name][:2]]
    options, index = _shuffled(clip(key.name), [clip(name) for name in others], rng)
    yield _question(
        facts,
        "top-self-op",
        prompt=f"{_intro(facts)} 자기 시간(self) 기준으로 가장 오래 걸린 연산은?",
        excerpt=excerpt,
        options=options,
        key=index,
        explanation=(
            f"전체 시간(total)은 그 연산이 부른 하위 연산의 시간까지 포함한다. {clip(rows[0].name)}은 전체 "
            f"{_ms(rows[0].total_us)} ms로 맨 위에 있지만 자기 시간은 {_ms(rows[0].self_us)} ms이고, 자기 시간이 "
            f"가장 긴 것은 {clip(key.name)}({_ms(key.self_us)} ms)이다. 직접 최적화할 곳은 자기 시간이 긴 연산이다."
        ),
    )


def gpu_idle(facts: TraceFacts, rng: random.Random) -> Iterator[TraceQuestion]:
    share = facts.gpu_idle_share
    if share is None or facts.gpu_busy_us <= 0:
        return
    answer = round(100 * share, 1)
    excerpt = (
        f"첫 GPU 활동부터 마지막 GPU 활동까지: {_ms(facts.gpu_window_us)} ms",
        f"그 사이 커널·복사·memset이 GPU를 쓴 시간(겹친 구간은 한 번만): {_ms(facts.gpu_busy_us)} ms",
    )
    yield _question(
        facts,
        "gpu-idle",
        prompt=f"{_intro(facts)} 이 구간에서 GPU가 아무 일도 하지 않은 시간은 몇 %인가?",
        excerpt=excerpt,
        number=answer,
        tolerance=1.0,
        unit="%",
        explanation=(
            f"유휴 비율 = 1 − 사용 시간 ÷ 구간 길이 = 1 − {_ms(facts.gpu_busy_us)} ÷ {_ms(facts.gpu_window_us)} ≈ "
            f"{answer:g}%. 겹쳐 실행된 커널(여러 스트림)은 한 번만 센다. 유휴가 크면 GPU가 CPU 쪽(데이터 준비, "
            "커널 실행 요청, 동기화)을 기다린 것이다."
        ),
    )


def communication_share(facts: TraceFacts, rng: random.Random) -> Iterator[TraceQuestion]:
    share = facts.communication_share
    if share is None or facts.communication_us <= 0:
        return
    rows = list(facts.kernels[:4])
    rest = facts.kernel_us - sum(row.total_us for row in rows)
    body = [(clip(row.name), _ms(row.total_us)) for row in rows]
    if rest > 0:
        body.append(("그 밖의 커널", _ms(rest)))
    body.append(("모든 커널 합계", _ms(facts.kernel_us)))
    answer = round(100 * share, 1)
    yield _question(
        facts,
        "comm-share",
        prompt=f"{_intro(facts)} 통신(NCCL) 커널이 GPU 커널 시간에서 차지하는 비율은 몇 %인가?",
        excerpt=table(("GPU 커널", "합계(ms)"), body),
        number=answer,
        tolerance=1.0,
        unit="%",
        explanation=(
            f"이름이 nccl로 시작하는 커널이 통신이다: {_ms(facts.communication_us)} ÷ {_ms(facts.kernel_us)} ≈ "
            f"{answer:g}%. 이 비율이 크면 계산보다 그래디언트 동기화가 스텝을 좌우하므로, 통신과 계산의 겹침"
            "(overlap)이나 버킷 크기를 먼저 본다."
        ),
    )


def profiler_event(facts: TraceFacts, rng: random.Random) -> Iterator[TraceQuestion]:
    # the program's own work, unmistakably: ATen ops and CUDA/HIP runtime calls (not annotations
    # such as torch.compile's regions, which a reader could argue either way)
    workload = [name for name in facts.workload_events if name.startswith(("aten::", "cuda", "hip"))]
    if not facts.profiler_events or len(workload) < 3:
        return
    key = rng.choice(facts.profiler_events)
    options, index = _shuffled(clip(key), [clip(name) for name in rng.sample(workload, 3)], rng)
    yield _question(
        facts,
        "profiler-event",
        prompt=f"{_intro(facts)} 이 트레이스의 이벤트 중 프로그램이 아니라 프로파일러가 스스로 기록한 것은?",
        excerpt=(),
        options=options,
        key=index,
        explanation=(
            f"'{key}'는 프로파일러의 기록이다: 'PyTorch Profiler (N)'은 기록 구간 전체, 'ProfilerStep#N'은 "
            "prof.step()이 나눈 스텝 표시이다. 나머지는 프로그램이 부른 연산(aten::…)이나 CUDA 런타임 호출이다. "
            "프로파일러 자신의 이벤트와 오버헤드는 분석에서 빼고 읽는다."
        ),
    )


def _pair(facts: TraceFacts, others: Sequence[TraceFacts]) -> TraceFacts | None:
    return next((f for f in others if f.trace.id == facts.trace.eager_of), None)


def compiled_vanished(facts: TraceFacts, rng: random.Random, eager: TraceFacts) -> Iterator[TraceQuestion]:
    """What a compiler takes out of a trace: the eager ops it fused into generated code."""
    eager_rows = list(eager.cpu_ops[:5])
    compiled_rows = list(facts.cpu_ops[:5])
    compiled_names = {row.name for row in facts.cpu_ops}
    shown_compiled = {row.name for row in compiled_rows}
    gone = [row.name for row in eager_rows if row.name not in compiled_names]
    kept = [row.name for row in eager_rows if row.name in shown_compiled]
    markers = [
        name for name in facts.compiled_markers if name in shown_compiled and not name.startswith("##")
    ]
    others = (kept + markers)[:3]
    if not gone or len(others) < 3:
        return
    key = rng.choice(gone)
    excerpt = side_by_side(
        table(("eager 연산", "자기(ms)"), [(clip(r.name, 20), _ms(r.self_us)) for r in eager_rows]),
        table(("compile 연산", "자기(ms)"), [(clip(r.name, 26), _ms(r.self_us)) for r in compiled_rows]),
    )
    options, index = _shuffled(key, others, rng)
    yield _question(
        facts,
        "compiled-vanished",
        prompt=f"{_intro(facts)} eager 트레이스에는 있지만 torch.compile 트레이스에서는 연산으로 보이지 않는 것은?",
        excerpt=excerpt,
        options=options,
        key=index,
        explanation=(
            f"{key}는 compile 트레이스에 없다. Dynamo가 잡은 그래프를 Inductor가 생성한 코드로 바꿔 "
            "'CompiledFxGraph' 호출 하나 안에서 실행하므로 원래의 aten 호출 단위로 기록되지 않는다(원소별 연산 gelu·"
            "mul·add는 하나로 합쳐진다: fusion). 행렬 곱은 라이브러리 호출 aten::mm으로 남는다. 'TorchDynamo Cache "
            "Lookup'은 호출마다 가드를 검사해 캐시된 코드를 고르는 비용, 'Torch-Compiled Region'은 컴파일된 구간을 "
            "표시하는 이벤트로, 둘 다 eager에는 없다."
        ),
    )


def compile_speedup(facts: TraceFacts, rng: random.Random, eager: TraceFacts) -> Iterator[TraceQuestion]:
    if not facts.step_mean_us or not eager.step_mean_us:
        return
    answer = round(eager.step_mean_us / facts.step_mean_us, 2)
    lookup = next((row for row in facts.cpu_ops if row.name == "TorchDynamo Cache Lookup"), None)
    excerpt = [
        f"eager   step 평균: {_ms(eager.step_mean_us)} ms",
        f"compile step 평균: {_ms(facts.step_mean_us)} ms",
    ]
    if lookup:
        excerpt.append(f"compile 쪽 TorchDynamo Cache Lookup: 호출당 {lookup.mean_us:,.1f} µs")
    yield _question(
        facts,
        "compile-speedup",
        prompt=f"{_intro(facts)} step 평균 시간 기준으로 compile 실행은 eager보다 몇 배 빠른가?",
        excerpt=tuple(excerpt),
        number=answer,
        tolerance=max(0.02, round(answer * 0.02, 2)),
        unit="배",
        explanation=(
            f"속도 향상 = eager 시간 ÷ compile 시간 = {_ms(eager.step_mean_us)} ÷ {_ms(facts.step_mean_us)} ≈ "
            f"{answer:g}배. 첫 호출의 컴파일 시간은 이 step들에 들어 있지 않다(워밍업 뒤 기록). 아주 작은 연산은 "
            "가드 검사와 래퍼 비용이 연산보다 커서 compile이 오히려 느릴 수 있다."
        ),
    )


def _linked_op(facts: TraceFacts) -> OpOnBothSides | None:
    candidates = [
        op for op in facts.ops_on_both_sides if op.name.startswith("aten::") and 2 <= len(op.kernels) <= 5
    ]
    return min(candidates, key=lambda op: (-len(op.kernels), op.name), default=None)


def cpu_vs_gpu(facts: TraceFacts, rng: random.Random) -> Iterator[TraceQuestion]:
    op = _linked_op(facts)
    if op is None:
        return
    answer = round(op.gpu_us)
    rows = [(f"CPU  {clip(op.name, 34)}", "", _us(op.cpu_us))]
    rows += [(f"GPU  {clip(name, 34)}", str(correlation), _us(us)) for correlation, name, us in op.kernels]
    yield _question(
        facts,
        "cpu-vs-gpu",
        prompt=(
            f"{_intro(facts)} {op.name} 한 번의 호출이 실행 요청한 커널들(상관 ID로 연결)이 GPU에서 쓴 시간의 "
            "합은 몇 µs인가?"
        ),
        excerpt=table(("이벤트", "상관 ID", "시간(µs)"), rows),
        number=answer,
        tolerance=max(1.0, round(answer * 0.01)),
        unit="µs",
        explanation=(
            f"커널 시간을 더하면 {answer:,} µs로, 같은 호출의 CPU 쪽 시간 {_us(op.cpu_us)} µs와 다르다. CPU 쪽 "
            "시간은 커널을 실행 요청(cudaLaunchKernel)하고 라이브러리(cuDNN·cuBLAS)를 준비하는 시간이고, 커널은 "
            "비동기로 GPU에서 나중에 실행된다. 두 쪽은 상관 ID(correlation)로 짝을 찾는다."
        ),
    )


Template = Callable[[TraceFacts, random.Random], Iterator[TraceQuestion]]
SINGLE: tuple[Template, ...] = (
    top_kernel,
    top_self_op,
    gpu_idle,
    communication_share,
    profiler_event,
    cpu_vs_gpu,
)
PAIRED = (compiled_vanished, compile_speedup)


def questions_from(facts: Sequence[TraceFacts], seed: int = 0) -> list[TraceQuestion]:
    """Every question the traces support; `seed` only orders options and picks among equals."""
    questions: list[TraceQuestion] = []
    for one in facts:
        for template in SINGLE:
            questions += template(one, random.Random(f"{seed}:{one.trace.id}:{template.__name__}"))
        eager = _pair(one, facts)
        if eager is not None:
            for paired in PAIRED:
                questions += paired(one, random.Random(f"{seed}:{one.trace.id}:{paired.__name__}"), eager)
    return questions


def trace_questions(content_root: Path, seed: int = 0) -> list[TraceQuestion]:
    return questions_from(all_facts(content_root), seed)


def problems(question: TraceQuestion) -> list[str]:
    """What `studyapp check` refuses in a generated question."""
    found = []
    if question.key is not None and len(set(question.options)) != len(question.options):
        found.append("two options read the same")
    if question.key is None and question.number is None:
        found.append("neither options nor a number")
    if len(question.excerpt) > MAX_LINES:
        found.append(f"excerpt of {len(question.excerpt)} lines (at most {MAX_LINES})")
    wide = [line for line in question.excerpt if display_width(line) > WIDTH]
    if wide:
        found.append(f"excerpt line wider than {WIDTH} columns: {wide[0][:40]}…")
    rows = wrapped_rows(question.prompt) + len(question.excerpt)
    rows += 1 + sum(wrapped_rows(f"{n}) {option}") for n, option in enumerate(question.options, 1))
    if rows > SCREEN_ROWS:
        found.append(f"question, excerpt and options take {rows} rows (the quiz screen shows {SCREEN_ROWS})")
    return found


def check_traces(root: Path) -> tuple[list[TraceQuestion], list[Problem]]:
    """Every trace of `root` read and every question computed, for `studyapp check`: a trace that
    cannot be read, or a question that breaks a rule above, is a problem at the trace's line."""
    manifest = root / TRACES_DIR / MANIFEST
    try:
        traces = read_manifest(root)
    except (TraceProblem, FileProblem) as error:
        return [], [Problem(manifest, getattr(error, "line", 1), f"traces: {error}")]
    found: list[Problem] = []
    facts: list[TraceFacts] = []
    for trace in traces:
        try:
            facts.append(trace_facts(trace))
        except (TraceProblem, OSError) as error:
            found.append(Problem(manifest, trace.line, f"trace '{trace.id}': {error}"))
    questions = questions_from(facts)
    lines = {trace.id: trace.line for trace in traces}
    for question in questions:
        found += [
            Problem(manifest, lines.get(question.trace_id, 1), f"{question.id}: {message}")
            for message in problems(question)
        ]
    if traces and not questions:
        found.append(Problem(manifest, 1, "traces: no question could be computed from any trace"))
    return questions, found
