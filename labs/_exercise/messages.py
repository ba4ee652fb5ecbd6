"""The checkers' own language table (ko / en): requirement names and the sentences that say what
is wrong follow the learner's `--lang`, which studyapp passes as STUDYAPP_LANG. The labs never
import studyapp, so this is their own small table, applied where a requirement is reported
(Checker._add): a checker writes English and stays readable in its source and its tests.

English is the default (no variable: `studyapp exercise verify`, the catalogue test, a checker run
by hand), so recorded slips' `fails:` lists keep naming requirements in English. A name or phrase
missing here stays English: an untranslated sentence is better than a wrong one.
"""

from __future__ import annotations

import os
import re

LANG_ENV = "STUDYAPP_LANG"


def language() -> str:
    return "ko" if os.environ.get(LANG_ENV, "").lower().startswith("ko") else "en"


def say(en: str, ko: str) -> str:
    """A message in the learner's language: a checker writes each sentence in both, side by side
    (`check.require(NAME, ok, say(f"...", f"..."), ...)`), so a Korean learner reads Korean whole
    sentences, not English with a few phrases swapped (the tables below are only the fallback)."""
    return ko if language() == "ko" else en


# Whole requirement names.
NAMES_KO: dict[str, str] = {
    # every learner run (labs/_exercise/learner.py's hygiene watch)
    "your code leaves nothing running when it returns": "여러분의 코드가 끝날 때 아무것도 돌고 있지 않다",
    # amdahl
    "amdahl_speedup follows S = 1 / ((1 − p) + p / n)": "amdahl_speedup이 S = 1 / ((1 − p) + p / n)을 따른다",
    "impossible inputs raise ValueError": "불가능한 입력에는 ValueError",
    # measure-resources
    "peak_memory_bytes: the peak of a known allocation": "peak_memory_bytes: 크기를 아는 할당의 peak",
    "io_wait_share: a sleep-heavy function waits": "io_wait_share: 주로 자는 함수는 기다린다",
    "io_wait_share: a CPU-bound function barely waits": "io_wait_share: 계산하는 함수는 거의 기다리지 않는다",
    "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers": (
        "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers"
    ),
    "parallel_efficiency: as many tasks run at once as there are workers": (
        "parallel_efficiency: worker 수만큼 task가 동시에 돈다"
    ),
    "parallel_efficiency: sleeping tasks use every worker": "parallel_efficiency: 자는 task는 worker를 모두 쓴다",
    "parallel_efficiency: computing tasks do not scale on threads (GIL)": (
        "parallel_efficiency: 계산 task는 스레드로 빨라지지 않는다 (GIL)"
    ),
    # pytest-benchmark / regression-check
    "each timed call runs the implementation and nothing else": "잰 호출마다 구현만 돈다 (다른 일은 없다)",
    "both benchmarks are in one group": "두 벤치마크가 한 group에 있다",
    "every timed call of insertion_sort got an unsorted list": "insertion_sort의 잰 호출마다 정렬 안 된 리스트",
    "insertion_sort is timed with benchmark.pedantic and a setup": "insertion_sort를 benchmark.pedantic과 setup으로 잰다",
    "merge_sorted is benchmarked": "merge_sorted를 벤치마크한다",
    "insertion_sort is benchmarked": "insertion_sort를 벤치마크한다",
    "compare_runs returns {fullname: verdict}": "compare_runs가 {fullname: 판정}을 돌려준다",
    "only benchmarks in both runs get a verdict": "두 실행에 모두 있는 벤치마크만 판정한다",
    "two runs of the same code are unchanged": "같은 코드를 두 번 잰 것은 unchanged",
    "a 2× slowdown is a regression": "2배 느려짐은 regression",
    "a 2× speedup is an improvement": "2배 빨라짐은 improvement",
    "a 5 % change inside 10 % noise is unchanged": "잡음 10 % 안의 5 % 변화는 unchanged",
    "a 30 % slowdown of a quiet benchmark is a regression": "조용한 벤치마크의 30 % 느려짐은 regression",
    "a 60 % slowdown of a noisy benchmark, bands apart, is a regression": (
        "시끄러운 벤치마크의 60 % 느려짐(band가 떨어짐)은 regression"
    ),
    "timings of 0 s (below the timer's resolution) are unchanged": "0초 시간(타이머 해상도 미만)은 unchanged",
    "the contract holds on generated edge pairs": "계약의 경계에서 만든 쌍에서도 계약을 지킨다",
    "both implementations sort lists of one size, the same for both": "두 구현이 같은 길이의 리스트 하나를 정렬한다",
    # concurrency
    "fetch_all waits for the requests concurrently (asyncio)": "fetch_all이 요청을 동시에 기다린다 (asyncio)",
    "crunch_all computes in parallel processes": "crunch_all이 프로세스로 병렬 계산한다",
    "the CPU work ran in child processes": "계산이 자식 프로세스에서 돌았다",
    "crunch_all runs several tasks at the same moment": "crunch_all이 여러 task를 동시에 돌린다",
    "crunch_all uses `workers` processes": "crunch_all이 `workers`개 프로세스를 쓴다",
    # pipeline
    "the stages work at the same time (a pipeline)": "단계들이 동시에 일한다 (파이프라인)",
    "the slow stage runs its threads at the same time": "느린 단계의 스레드들이 동시에 돈다",
    "busy_s is the time spent inside work()": "busy_s는 work() 안에서 보낸 시간",
    "bottleneck() names the slowest stage": "bottleneck()이 가장 느린 단계를 댄다",
    "relieve() spends the threads on the bottleneck": "relieve()가 스레드를 병목에 쓴다",
    "your pipeline runs on planted stage costs": "심어 둔 단계 비용으로 여러분의 파이프라인이 돈다",
    "run_pipeline agrees with the reference on generated pipelines": "만들어 낸 파이프라인에서 run_pipeline이 참고 답안과 같다",
    "throughput ≈ 1 / slowest stage (measured)": "처리량 ≈ 1 / 가장 느린 단계 (측정)",
    # errors
    "balanced_accuracy: mean per-class recall": "balanced_accuracy: 클래스별 recall의 평균",
    "accuracy_is_misleading: spots the accuracy trap": "accuracy_is_misleading: accuracy 함정을 알아챈다",
    "imbalance_ratio: largest / smallest class count": "imbalance_ratio: 가장 많은 / 가장 적은 클래스 수",
    "normalized_entropy: H / log k": "normalized_entropy: H / log k",
    "mcc: multi-class Matthews correlation": "mcc: 다중 클래스 Matthews 상관계수",
    "confusion_matrix: rows = true class, columns = predicted": "confusion_matrix: 행 = 실제 클래스, 열 = 예측",
    "per_class_metrics: precision, recall, F1, support": "per_class_metrics: precision, recall, F1, support",
    "a class never predicted (or absent) has precision 0, no crash": (
        "한 번도 예측되지 않은(또는 없는) 클래스는 precision 0, 멈추지 않는다"
    ),
    "macro_f1: the mean of the per-class F1": "macro_f1: 클래스별 F1의 평균",
    "fits one model per round on a bootstrap sample": "round마다 bootstrap 표본으로 모델 하나를 맞춘다",
    "bias2 matches the reference": "bias2가 참고값과 맞다",
    "variance matches the reference": "variance가 참고값과 맞다",
    # profiler
    "the plugin finds two runs: compute and waiting": "플러그인이 run 두 개를 찾는다: compute와 waiting",
    "the traces are gzipped": "trace가 gzip으로 압축되어 있다",
    "each run holds one cycle of 3 profiled steps": "run마다 프로파일된 step 3개의 cycle 하나",
    "each workload runs 5 steps: wait + warmup + active": "workload마다 step 5개를 실행한다: wait + warmup + active",
    "each run records ProfilerStep#2-#4: wait=1, warmup=1": "run마다 ProfilerStep#2-#4를 기록한다: wait=1, warmup=1",
    "CUDA is profiled where there is a GPU, and only there": "GPU가 있으면 CUDA를 프로파일하고, 없으면 하지 않는다",
    "a warmup step before each recording": "기록 전마다 warmup step 하나",
    # amdahl (the rest of each lab's names; tests/exercises/test_exercise_lib.py finds a missing one)
    "amdahl_speedup grows with n": "amdahl_speedup이 n과 함께 커진다",
    "amdahl_speedup tends to 1 / (1 − p) and never passes it": "amdahl_speedup이 1 / (1 − p)에 다가가되 넘지 않는다",
    "gustafson_speedup follows S = (1 − p) + p · n": "gustafson_speedup이 S = (1 − p) + p · n을 따른다",
    "Gustafson's scaled speedup is never below Amdahl's": "Gustafson의 확장 speedup은 Amdahl의 것보다 작지 않다",
    "karp_flatt inverts Amdahl: karp_flatt(amdahl_speedup(p, n), n) = 1 − p": "karp_flatt가 Amdahl을 거꾸로 푼다: karp_flatt(amdahl_speedup(p, n), n) = 1 − p",
    "laws.py answers every call": "laws.py가 모든 호출에 답한다",
    # measure-resources
    "peak_memory_bytes: stops tracing afterwards": "peak_memory_bytes: 잰 뒤 추적을 멈춘다",
    "io_wait_share() returns a share": "io_wait_share()가 비율을 돌려준다",
    "io_wait_share: 1 − CPU time / wall time, clamped to [0, 1], on the check's clocks": (
        "io_wait_share: 검사기의 시계에서 1 − CPU 시간 / wall 시간을 [0, 1]로 자른 값"
    ),
    # pytest-benchmark / regression-check
    "pytest runs your file": "pytest가 여러분의 파일을 실행한다",
    "pytest runs your file and its tests pass": "pytest가 여러분의 파일을 실행하고 테스트가 통과한다",
    "pytest ran the benchmarks": "pytest가 벤치마크를 돌렸다",
    "python compare_runs.py OLD.json NEW.json prints every verdict": (
        "python compare_runs.py OLD.json NEW.json이 판정을 모두 출력한다"
    ),
    # errors
    "most_confused_pair: the largest off-diagonal cell": "most_confused_pair: 대각선 밖에서 가장 큰 칸",
    "returns the four numbers": "네 개의 수를 돌려준다",
    "expected_error ≈ bias2 + variance + noise": "expected_error ≈ bias2 + variance + noise",
    # profiler
    "make_schedule() gives a schedule the profiler runs": "make_schedule()이 profiler가 돌리는 schedule을 준다",
    "exactly steps 3–5 and 9–11 are recorded": "정확히 step 3–5와 9–11이 기록된다",
    "two cycles, one trace each": "cycle 두 개, cycle마다 trace 하나",
    "nothing is profiled after step 11": "step 11 뒤로는 아무것도 프로파일하지 않는다",
    "your handler runs under the profiler": "여러분의 handler가 profiler 아래에서 돈다",
    "files go to out_dir only": "파일은 out_dir에만 쓴다",
    "read_overview: a run the checker wrote": "read_overview: 검사기가 쓴 run",
    "read_overview matches the Overview: a run the checker wrote": "read_overview가 Overview와 맞다: 검사기가 쓴 run",
    "read_overview matches the Overview on generated runs": "생성한 run들에서 read_overview가 Overview와 맞다",
    "agrees with the reference reading on generated traces": "생성한 트레이스들에서 참조 풀이의 읽기와 같다",
    "TensorBoard's profiler plugin loads both runs": "TensorBoard의 profiler 플러그인이 두 run을 모두 읽는다",
    # distributed
    "returns steps, step_s, comm_s and share as numbers": "steps, step_s, comm_s, share를 수로 돌려준다",
    "steps: one per ProfilerStep#N span": "steps: ProfilerStep#N 구간마다 하나",
    "step_s: the steps' total time, in seconds": "step_s: step들의 전체 시간 (초)",
    "comm_s: time inside the steps when at least one gloo collective runs": "comm_s: step 안에서 gloo collective가 하나라도 도는 시간",
    "share = comm_s / step_s": "share = comm_s / step_s",
    "a recorded 2-process DDP run: your reading = the checker's reading of the same trace": "기록해 둔 2-프로세스 DDP 실행: 여러분이 읽은 값 = 같은 trace를 검사기가 읽은 값",
}

# Patterns of names that carry a value: (regex, Korean with \\1 ...).
NAME_PATTERNS_KO: list[tuple[str, str]] = [
    (r"^(\w+)\(\) runs$", r"\1()이 실행된다"),
    (r"^(\w+)\(old, new\) runs$", r"\1(old, new)이 실행된다"),
    (r"^read_overview matches the Overview: (.+)$", r"read_overview가 Overview와 맞다: \1"),
    (r"^run (\d+): the answer names the planted slow stage$", r"\1번째 실행: 심어 둔 느린 단계를 답한다"),
    (r"^run (\d+): every stage is labelled stage:NAME$", r"\1번째 실행: 단계마다 stage:NAME 라벨"),
    (r"^run (\d+): the labels wrap the stages' work$", r"\1번째 실행: 라벨이 각 단계의 일을 감싼다"),
    (r"^run (\d+): the trace can be read$", r"\1번째 실행: trace를 읽을 수 있다"),
    (r"^run (\d+): the trace is exported to trace_path$", r"\1번째 실행: trace를 trace_path로 내보낸다"),
    (r"^(\w+) matches the reference$", r"\1: 참고값과 맞다"),
    (r"^(\S+\.py) is in the workspace$", r"\1: 작업 폴더에 있다"),
    (r"^the pedantic benchmark runs at least (\d+) rounds$", r"pedantic 벤치마크가 최소 \1 round 돈다"),
    (r"^each run holds one cycle of (\d+) profiled steps$", r"run마다 프로파일된 step \1개의 cycle 하나"),
    (r"^read_overview: (.+)$", r"read_overview: \1"),
    (
        r"^(schedule\(.*\)): one trace per cycle, named by its steps$",
        r"\1: cycle마다 trace 하나, step 번호로 이름 붙임",
    ),
    (
        r"^(schedule\(.*\)): each trace holds its cycle's ProfilerStep#N$",
        r"\1: trace마다 자기 cycle의 ProfilerStep#N",
    ),
    (r"^(schedule\(.*\)): one key_averages table per cycle$", r"\1: cycle마다 key_averages 표 하나"),
    (r"^(schedule\(.*\)): tables sorted by self CPU time$", r"\1: 표가 self CPU 시간 순"),
    (
        r"^every item passes load → transform → save once \(one thread per stage\)$",
        "모든 item이 load → transform → save를 한 번씩 지난다 (단계마다 스레드 1개)",
    ),
    (
        r"^every item passes load → transform → save once \((\[[\d, ]+\]) threads\)$",
        r"모든 item이 load → transform → save를 한 번씩 지난다 (스레드 \1)",
    ),
    (
        r"^no stage runs more threads than asked \(one thread per stage\)$",
        "어느 단계도 요청보다 많은 스레드를 돌리지 않는다 (단계마다 스레드 1개)",
    ),
    (
        r"^no stage runs more threads than asked \((\[[\d, ]+\]) threads\)$",
        r"어느 단계도 요청보다 많은 스레드를 돌리지 않는다 (스레드 \1)",
    ),
]

# Sentences and fragments of messages, longest first where one contains another.
PHRASES_KO: list[tuple[str, str]] = [
    (
        "the machine is too busy to tell (the reference falls short too)",
        "기계가 너무 바빠 판단할 수 없습니다 (참고 답안도 못 미침)",
    ),
    ("close other programs and check again", "다른 프로그램을 닫고 다시 검사하세요"),
    ("Close other programs and check again", "다른 프로그램을 닫고 다시 검사하세요"),
    ("the machine is too busy to tell; check again", "기계가 너무 바빠 판단할 수 없습니다; 다시 검사하세요"),
    ("or let the structure decide:", "또는 구조로 판정받기:"),
    ("where the reference does not", "참고 답안은 넘는데"),
    ("yours stays below", "여러분의 값이 다음보다 낮습니다:"),
    ("in the same rounds", "같은 round에서"),
    ("the reference's", "참고 답안의"),
    ("your code raised", "여러분의 코드가 예외를 냈습니다:"),
    ("your code did not finish within", "여러분의 코드가 다음 시간 안에 끝나지 않았습니다:"),
    ("your code did not run", "여러분의 코드가 실행되지 않았습니다"),
    ("— on the case:", "— 사례:"),
    ("wrong results: expected", "결과가 틀렸습니다: 기대한 것은"),
    ("values in the order given", "개 값, 준 순서대로"),
    ("in another order (the order they finished?)", "다른 순서 (끝난 순서?)"),
    ("in another order", "다른 순서"),
    ("judged on structure:", "구조로 판정:"),
    ("this process may use only 1 core", "이 프로세스는 코어 1개만 쓸 수 있습니다"),
    ("crunch() calls ran one at a time", "crunch() 호출이 하나씩 돌았습니다"),
    ("submit every task before waiting for any result", "결과를 기다리기 전에 task를 모두 submit하세요"),
    (
        "save began only after load had finished every item: the stages ran one after another.",
        "save가 load가 모든 item을 끝낸 뒤에야 시작했습니다: 단계들이 차례로 돌았습니다.",
    ),
    (
        "Pass each item on as soon as a stage is done with it (queues between the stages)",
        "단계가 item 하나를 끝내면 바로 넘기세요 (단계 사이 queue)",
    ),
    (
        "the timed callable does other work too, such as building its input",
        "잰 callable이 입력을 만드는 것 같은 다른 일도 합니다",
    ),
    (
        "build it before benchmark(...), or in pedantic's setup",
        "benchmark(...) 전에, 또는 pedantic의 setup에서 만드세요",
    ),
    ("ran no operator", "에서 연산이 하나도 돌지 않았습니다"),
    ("the loop ended before the last active step", "루프가 마지막 active step 전에 끝났습니다"),
    ("the same code measured twice; the IQR bands overlap", "같은 코드를 두 번 잰 것; IQR band가 겹침"),
    ("average the per-class F1 scores instead", "클래스별 F1을 평균하세요"),
    ("that is the accuracy (micro F1)", "이것은 accuracy (micro F1)입니다"),
    (
        "that is the F1 of the mean precision and the mean recall",
        "이것은 평균 precision과 평균 recall의 F1입니다",
    ),
    (
        "that leaves out the classes absent from y_true (their F1 is 0 and counts)",
        "y_true에 없는 클래스를 뺐습니다 (그 F1은 0이고 평균에 들어갑니다)",
    ),
    (
        "that is weighted by support (weighted F1); macro weighs every class the same",
        "이것은 support로 가중한 값(weighted F1)입니다; macro는 클래스마다 같은 무게",
    ),
    ("but the fastest round is luck too", "그러나 가장 빠른 round도 운입니다"),
    ("but slow rounds pull it (and stddev)", "그러나 느린 round 몇 개가 끌어당깁니다 (stddev도)"),
    ("but noise moves it; the bands overlap", "그러나 잡음이 움직인 것이고 band는 겹칩니다"),
    ("a threshold scaled by the noise misses it", "잡음에 비례하는 문턱은 이것을 놓칩니다"),
    ("a fixed threshold of 30 % or more misses it", "30 % 이상의 고정 문턱은 이것을 놓칩니다"),
    # schedule, amdahl, pipeline (the causes their checkers name)
    ("the step just before each recording should be WARMUP:", "기록 직전 step은 WARMUP이어야 합니다:"),
    (
        "(with warmup=0 the first recorded step carries start-up costs)",
        "(warmup=0이면 첫 기록 step에 시작 비용이 섞입니다)",
    ),
    ("(your schedule warms up at steps", "(여러분의 schedule이 warmup하는 step:"),
    (": its cycles do not line up with 3 and 9)", ": cycle이 3, 9와 맞지 않습니다)"),
    ("p is the parallel fraction; 1 − p is the serial one", "p는 병렬 비율, 1 − p는 직렬 비율입니다"),
    ("(that is S for p =", "(이 값은 다음 p의 S입니다: p ="),
    (
        "(close, but not exact: return the exact value, not a rounded one)",
        "(가깝지만 정확하지 않습니다: 반올림하지 말고 정확한 값을 돌려주세요)",
    ),
    (
        "something keeps the threads out of work(), such as a lock held while work() runs, "
        "or sleeping or other work after each item",
        "무언가가 스레드를 work() 밖에 붙잡아 둡니다: work()를 감싼 lock, 또는 item마다 자기(sleep)나 다른 일",
    ),
    ("start workers[i] threads per stage", "단계마다 스레드 workers[i]개를 시작하세요"),
    (
        "a class absent from y_true has no recall — average over the classes in y_true",
        "y_true에 없는 클래스는 recall이 없습니다 — y_true의 클래스로만 평균하세요",
    ),
]


def translate_name(name: str) -> str:
    if language() != "ko":
        return name
    if name in NAMES_KO:
        return NAMES_KO[name]
    for pattern, korean in NAME_PATTERNS_KO:
        if re.match(pattern, name):
            return re.sub(pattern, korean, name)
    return name


def translate_message(message: str) -> str:
    if language() != "ko":
        return message
    for english, korean in PHRASES_KO:
        message = message.replace(english, korean)
    return message
