"""The cue-only solver (studyapp/content/cues.py) and the item-writing lint of `studyapp check`.

The last two tests are issue 20's "done when" on the SHIPPED bank: a solver that reads only the
text's form answers at most 60 % of the O/X statements held out, and finds the key of at most
35 % of generated 4-choice questions, over several seeds and in every topic.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from studyapp.content import cues
from studyapp.content.cues import (
    ChoiceCase,
    by_absolute_words,
    by_length,
    by_logic,
    by_middle_length,
    by_odd_length,
    choice_cue_score,
    ox_cue_score,
)
from studyapp.content.loader import load_content
from studyapp.content.model import Item, Location
from studyapp.quiz.choice_cues import choice_scores
from tests.conftest import REPO, run_cli
from tests.helpers_content import items_text, line_of, write_content

# Done-when targets (issue 20).
OX_TARGET = 0.60
CHOICE_TARGET = 0.35
SEEDS = range(6)


def statement_item(number: int, answer: str, statement: str, topic: str = "t") -> Item:
    return Item(
        id=f"t-{number:03d}",
        topic=topic,
        statement=statement,
        answer=answer,
        explanation="설명",
        section="definition",
        location=Location(Path("t.yaml"), number),
    )


WORDS = [
    "프로파일러",
    "커널",
    "배치",
    "스텝",
    "메모리",
    "스레드",
    "큐",
    "지연",
    "처리량",
    "캐시",
    "로더",
    "그래프",
]


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)) + "이다."


# -- O/X ----------------------------------------------------------------------------------------


def test_ox_solver_finds_a_planted_length_cue_and_not_a_missing_one() -> None:
    rng = random.Random(1)
    cued = [statement_item(n, "O", sentence(rng, rng.randint(9, 12))) for n in range(30)]
    cued += [statement_item(100 + n, "X", sentence(rng, rng.randint(4, 7))) for n in range(30)]
    score = ox_cue_score(cued)
    assert score is not None and score.best >= 0.9 and "length" in score.best_rule
    fair = [statement_item(n, rng.choice("OX"), sentence(rng, rng.randint(4, 12))) for n in range(60)]
    assert (fair_score := ox_cue_score(fair)) is not None and fair_score.best <= 0.7
    assert ox_cue_score(cued[:5]) is None  # too few to split


def test_ox_solver_reads_absolute_words_either_way() -> None:
    rng = random.Random(2)
    # False statements say 항상; true ones the same length without it.
    items = [statement_item(n, "X", "항상 " + sentence(rng, 6)) for n in range(20)]
    items += [statement_item(100 + n, "O", "보통 " + sentence(rng, 6)) for n in range(20)]
    assert (score := ox_cue_score(items)) is not None and score.by_rule["absolute word"] >= 0.9
    # An over-corrected bank (absolute words only in true statements) is a cue too.
    flipped = [Item(**{**vars(item), "answer": "O" if item.answer == "X" else "X"}) for item in items]
    assert (again := ox_cue_score(flipped)) is not None and again.by_rule["absolute word"] >= 0.9
    assert cues.absolute_words_in("반드시 모든 스텝을 기록한다") == ("반드시", "모든")
    assert cues.has_hedge("스텝이 빠질 수 있다") and not cues.has_hedge("스텝이 빠진다")


# -- 4-choice -----------------------------------------------------------------------------------


def test_choice_strategies_read_only_the_form() -> None:
    options = (
        "짧은 보기이다.",
        "조금 더 긴 보기 문장이다.",
        "가장 길게 늘여 쓴 보기 문장이 여기에 있다.",
        "항상 그렇다.",
    )
    asks_true = ChoiceCase(True, options, answer=2)
    asks_false = ChoiceCase(False, options, answer=3)
    assert by_length(asks_true.form) == [2] and by_length(asks_false.form) == [3]
    assert by_middle_length(asks_true.form) == [0, 1]
    assert by_absolute_words(asks_false.form) == [3]  # the one with 항상
    assert by_absolute_words(asks_true.form) == [2]  # the longest without one
    assert by_odd_length(asks_true.form) == [2]
    mirrored = ("프로파일러는 커널 시간을 측정한다.", "프로파일러는 커널 시간을 측정하지 않는다.", "가", "나")
    assert by_logic(ChoiceCase(True, mirrored, answer=0)) == [1]  # the longer of the pair


def test_choice_score_counts_ties_as_a_fair_guess_and_tracks_positions() -> None:
    same = ("가나다라", "마바사아", "자차카타", "파하가나")  # all the same length: every length rule guesses
    cases = [ChoiceCase(True, same, answer=position) for position in range(4)]
    score = choice_cue_score(cases)
    assert score.questions == 4 and score.positions == (1, 1, 1, 1) and score.kinds == (4, 0)
    assert score.by_strategy["length"] == pytest.approx(0.25)
    assert score.by_strategy[cues.POSITION_STRATEGY] == pytest.approx(0.25)
    assert score.best == pytest.approx(0.25)
    longest_key = [ChoiceCase(True, ("가", "가나", "가나다", "가나다라마"), answer=3)] * 4
    assert choice_cue_score(longest_key).by_strategy["length"] == 1.0


# -- the lint in `studyapp check` ---------------------------------------------------------------

STATEMENTS = {
    1: "데모 프로파일러는 연산자별 실행 시간을 표로 보여 준다.",
    2: "데모 프로파일러는 모델의 정확도를 직접 높여 준다.",
    3: "데모 벤치마크는 같은 함수를 여러 번 실행해 통계를 낸다.",
    4: "데모 벤치마크는 첫 실행 한 번의 시간만 기록한다.",
    8: "데이터 로더 작업자 수를 늘리면 학습 속도가 느려진다.",
    11: "파이프라인의 처리량은 가장 느린 단계가 정한다.",
    12: "GPU 사용률이 낮다면 연산이 병목이라는 뜻이다.",
    13: "메모리 프로파일은 할당된 텐서의 크기를 보여 준다.",
    14: "역전파 시간은 순전파 시간과 항상 같다.",
    15: "워밍업 스텝은 측정에서 빼는 것이 좋다.",
    16: "캐시를 비우면 두 번째 실행이 더 빨라진다.",
    17: "스레드 풀은 입출력 대기를 겹치는 데 쓰인다.",
    18: "큐를 키우면 가장 느린 단계보다 빨라진다.",
    19: "트레이스 파일은 크롬 추적 형식으로 저장된다.",
    20: "같은 입력으로 재도 시간은 조금씩 다르지 않다.",
    # The unmarked mirror: the same words, negated, keyed O and X.
    9: "데모 프로파일러는 GPU 커널 시간을 측정한다.",
    10: "데모 프로파일러는 GPU 커널 시간을 측정하지 않는다.",
}


def planted_bank(tmp_path: Path, siblings: bool = False) -> tuple[Path, str]:
    """The demo topic with real-looking statements, one padded to twice the topic's mean
    length (demo-007), and a negation mirror (demo-009 O / demo-010 X)."""
    text = items_text(20)
    for number, statement in STATEMENTS.items():
        text = text.replace(f"데모 문장 {number}번이다.", statement)
    others = [len(s) for s in STATEMENTS.values()] + [len("데모 O 예시이다."), len("데모 X 예시이다.")]
    mean = sum(others) / len(others)
    filler = " 그 표에는 연산자 이름과 호출 횟수와 시간이 적힌다" * 4
    padded = ("데모 프로파일러는 스텝마다 연산자 표를 만든다." + filler)[: round(2 * mean) - 1] + "."
    text = text.replace("데모 문장 7번이다.", padded)
    if siblings:
        text = text.replace("  - id: demo-010\n", "  - id: demo-010\n    siblings: [demo-009]\n")
    root = write_content(tmp_path / "content", text)
    return root / "items" / "demo.yaml", text


def check_fixture(tmp_path: Path, content_root: Path) -> subprocess.CompletedProcess[str]:
    """`studyapp check` on a fixture, with no labs (theirs name the shipped checklist)."""
    labs = tmp_path / "no-labs" / "labs"
    labs.mkdir(parents=True, exist_ok=True)
    return run_cli("check", "--content", str(content_root), env={"STUDYAPP_LABS": str(labs)})


def test_planted_cues_are_reported_with_file_and_line(tmp_path: Path) -> None:
    path, text = planted_bank(tmp_path)
    result = check_fixture(tmp_path, path.parent.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    padded = [line for line in out.splitlines() if "'demo-007'" in line]
    assert len(padded) == 1, out
    assert padded[0].startswith(f"{path}:{line_of(text, 'id: demo-007')}: warning: ")
    assert "× its topic's mean length" in padded[0]
    mirror = [
        line for line in out.splitlines() if "mirror pair without `siblings:`" in line and "demo-009" in line
    ]
    assert len(mirror) == 1, out
    assert "negated" in mirror[0]
    assert f"'demo-009' ({path}:{line_of(text, 'id: demo-009')})" in mirror[0]
    assert f"'demo-010' ({path}:{line_of(text, 'id: demo-010')})" in mirror[0]
    # The figures: a header and one row per topic and for the bank.
    assert "item-writing cues" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("demo "))
    assert "/" in row and "%" in row
    assert any(line.strip().startswith("(bank)") for line in out.splitlines())


def test_declared_siblings_silence_the_mirror_warning(tmp_path: Path) -> None:
    path, _ = planted_bank(tmp_path, siblings=True)
    result = check_fixture(tmp_path, path.parent.parent)
    assert result.returncode == 0, result.stderr
    assert "'demo-009'" not in result.stdout and "'demo-010'" not in result.stdout
    assert "'demo-007'" in result.stdout  # the padded statement is still reported


def test_lint_figures_on_a_fixture(tmp_path: Path) -> None:
    path, _ = planted_bank(tmp_path)
    content = load_content(path.parent.parent)
    report = cues.lint(content, choice_scores(content, range(2)), base=tmp_path)
    (row,) = report.topics
    # Two mirrors: the planted one and the fixture's own seed examples ("데모 O/X 예시이다.").
    assert row.topic == "demo" and row.statements == 20 and row.unmarked_mirrors == 2
    assert row.o_count == 10 and row.x_count == 10 and row.absolute_x >= 1
    assert row.ox is not None and 0 <= row.ox.best <= 1
    assert report.bank.statements == 20
    lines = cues.format_figures(report)
    assert len(lines) == 4 and "demo" in lines[2]  # title, header, the topic, the bank


# -- issue 20's targets on the shipped bank --------------------------------------------------------


@pytest.fixture(scope="module")
def shipped():
    return load_content(REPO / "content")


def test_shipped_bank_ox_cues_answer_at_most_60_percent(shipped) -> None:
    """Best of the length and absolute-word rules, fitted on half the bank, scored on the other
    half, averaged over 20 seeded splits. Depends on the bank's rewrite (issue 20, part 1)."""
    score = ox_cue_score(shipped.items.values(), splits=20)
    assert score is not None
    figures = ", ".join(f"{name} {value:.0%}" for name, value in sorted(score.by_rule.items()))
    assert score.best <= OX_TARGET, f"O/X cue solver: {score.best_rule} {score.best:.1%} ({figures})"


def test_generated_choice_questions_defeat_the_cue_solver_in_every_topic(shipped) -> None:
    scores = choice_scores(shipped, SEEDS)
    assert set(scores) == {topic for topic in shipped.topics if shipped.items_for_topic(topic)}
    report = []
    for topic, score in scores.items():
        report.append(f"{topic}: {score.best:.0%} by {score.best_strategy} over {score.questions}")
        assert score.questions >= 4 * len(SEEDS), report[-1]  # a handful of questions per batch at least
    pooled = cues._pooled(scores)
    assert pooled is not None
    worst = max(scores.values(), key=lambda score: score.best)
    assert worst.best <= CHOICE_TARGET, "; ".join(report)
    assert pooled.best <= CHOICE_TARGET, f"all topics: {pooled.best:.0%} by {pooled.best_strategy}"
