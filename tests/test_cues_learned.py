"""The cue lint that learns (studyapp/content/learned_cues.py, issue 32).

A cue planted into fixture content (every X statement ends the same way; X statements open with
a concessive clause; a cue spread over words too rare to judge alone) is flagged, and `studyapp
check` fails on it; the same statements with the cue removed pass. The last test is issue 32's
"done when" on the SHIPPED bank: no feature, and not the model, beats chance + 10 points.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from studyapp.content import learned_cues
from studyapp.content.learned_cues import MARGIN, learned_cue_report, statement_features
from studyapp.content.loader import load_content
from studyapp.content.model import Item, Location
from tests.conftest import REPO
from tests.helpers_content import items_text, line_of, write_content

SUBJECTS = [
    "프로파일러",
    "데이터 로더",
    "벤치마크 픽스처",
    "이벤트 루프",
    "스레드 풀",
    "커널 런처",
    "메모리 할당기",
    "트레이스 뷰어",
    "학습 루프",
    "평가 스크립트",
    "캐시 계층",
    "스케줄러",
]
OBJECTS = [
    "연산자별 시간",
    "배치 크기",
    "입출력 대기",
    "커널 실행 순서",
    "할당된 텐서",
    "워밍업 반복",
    "호출 횟수",
    "처리량 변화",
    "지연 분포",
    "스텝 경계",
    "동기화 지점",
    "복사 구간",
]
PLACES = [
    "첫 스텝에서",
    "매 에폭마다",
    "측정 구간 안에서",
    "GPU 위에서",
    "CPU 쪽에서",
    "작업자마다",
    "요청마다",
]
VERBS = ["기록", "측정", "집계", "비교", "출력", "추적", "분리", "요약"]
ENDINGS = ["한다.", "하지 않는다."]  # the planted cue: X statements end "…하지 않는다."


def statement(rng: random.Random, ending: str, concessive: bool = False) -> str:
    opening = f"{rng.choice(PLACES)} 값이 작더라도, " if concessive else f"{rng.choice(PLACES)} "
    return f"{opening}{rng.choice(SUBJECTS)}는 {rng.choice(OBJECTS)}을 {rng.choice(VERBS)}{ending}"


def bank(answers: list[str], make) -> list[Item]:
    return [
        Item(
            id=f"t-{number:03d}",
            topic="t",
            statement=make(number, answer),
            answer=answer,
            explanation="설명",
            section="definition",
            location=Location(Path("t.yaml"), number),
        )
        for number, answer in enumerate(answers)
    ]


def balanced_answers(count: int, seed: int) -> list[str]:
    answers = ["O", "X"] * (count // 2)
    random.Random(seed).shuffle(answers)
    return answers


def test_a_planted_ending_is_flagged_and_a_fair_bank_is_not() -> None:
    rng = random.Random(3)
    answers = balanced_answers(80, seed=3)
    planted = bank(answers, lambda n, answer: statement(rng, ENDINGS[answer == "X"]))
    report = learned_cue_report(planted)
    assert report is not None
    flagged = {cue.feature: cue for cue in report.flagged}
    ending = flagged["statement ends '…않는다'"]
    assert ending.answer == "X" and ending.x_count == 40 and ending.o_count == 0
    assert ending.held_out == 1.0 and ending.held_out > report.chance + MARGIN
    assert report.model_flagged and report.model >= 0.95

    rng = random.Random(3)
    fair = bank(answers, lambda n, answer: statement(rng, rng.choice(ENDINGS)))
    report = learned_cue_report(fair)
    assert report is not None and report.flagged == [] and not report.model_flagged
    assert report.chance == 0.5  # 40 O / 40 X: answering either key every time scores half


def test_a_planted_concessive_opening_is_flagged_as_a_form() -> None:
    """The reviewers' cue: a concessive clause, then the (false) claim, in most X statements."""
    rng = random.Random(4)
    answers = balanced_answers(100, seed=4)
    # 24 of 50 X statements open with a concessive clause, 4 of 50 O ones: 86 % X.
    x_seen = o_seen = 0

    def make(number: int, answer: str) -> str:
        nonlocal x_seen, o_seen
        x_seen += answer == "X"
        o_seen += answer == "O"
        concessive = (answer == "X" and x_seen <= 24) or (answer == "O" and o_seen <= 4)
        return statement(rng, rng.choice(ENDINGS), concessive=concessive)

    items = bank(answers, make)
    report = learned_cue_report(items)
    assert report is not None
    (cue,) = [cue for cue in report.flagged if cue.feature == learned_cues.CONCESSIVE_FAMILY]
    assert (cue.o_count, cue.x_count, cue.answer) == (4, 24, "X") and cue.named
    assert cue.held_out > report.chance + MARGIN


def test_the_model_finds_a_cue_spread_over_words_too_rare_to_judge_alone() -> None:
    rng = random.Random(5)
    answers = balanced_answers(100, seed=5)
    tells = [
        "주로",
        "대체로",
        "흔히",
        "대개",
        "보통은",
        "일반적으로",
        "자주",
        "종종",
        "거의",
        "가끔",
    ]  # 5 X each
    tells_used = iter(tells * 5)

    def make(number: int, answer: str) -> str:
        text = statement(rng, rng.choice(ENDINGS))
        return f"{next(tells_used)} {text}" if answer == "X" else text

    items = bank(answers, make)
    report = learned_cue_report(items)
    assert report is not None
    assert all(
        not cue.feature.startswith("word '") or cue.feature[6:-1] not in tells for cue in report.judged
    )
    assert report.model_flagged and report.model > report.chance + MARGIN
    # `studyapp check` fails on it: an error (not a warning) at the first item's file.
    (problem,) = [p for p in learned_cues.learned_cue_problems(report, items) if "classifier" in p.message]
    assert not problem.warning and problem.path == Path("t.yaml") and problem.line == 1
    assert f"answers {report.model:.0%} of them held out" in problem.message


def test_the_report_is_deterministic_and_needs_enough_statements() -> None:
    rng = random.Random(6)
    items = bank(balanced_answers(60, seed=6), lambda n, answer: statement(rng, ENDINGS[answer == "X"]))
    assert learned_cue_report(items) == learned_cue_report(items)
    assert learned_cue_report(items[: learned_cues.MIN_STATEMENTS - 1]) is None


def test_features_read_the_form() -> None:
    found = statement_features("한 번 실행이 짧더라도, 그 함수는 병목이 아니다.")
    assert learned_cues.CONCESSIVE_FAMILY in found
    assert "statement ends '…아니다'" in found and "word ending '…더라도'" in found
    assert "form: negated ending (…않는다/…없다)" in found
    assert learned_cues.CONCESSIVE_FAMILY not in statement_features("적어도 두 번 잰다.")
    assert "form: contrastive clause (…지만)" in statement_features("빠르지만 메모리를 더 쓴다.")


def test_importing_the_learned_lint_does_not_import_numpy() -> None:
    """The quiz path must never pay for numpy: it is imported only when the model is fitted."""
    code = "import sys, studyapp.content.learned_cues; print('numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# -- through `studyapp check` ------------------------------------------------------------------------


def fixture_bank(tmp_path: Path, planted: bool) -> tuple[Path, str]:
    """The demo topic with 60 items; with `planted`, every X statement ends "…하지 않는다"."""
    text = items_text(60)
    rng = random.Random(7)
    for number in [*range(1, 5), *range(7, 61)]:
        answer = "O" if number in (1, 3) or (number > 6 and number % 2) else "X"
        ending = ENDINGS[answer == "X"] if planted else ENDINGS[rng.random() < 0.5]
        text = text.replace(f"데모 문장 {number}번이다.", f"{number}번 {statement(rng, ending)}")
    root = write_content(tmp_path / "content", text)
    return root / "items" / "demo.yaml", text


def check(studyapp_cli, tmp_path: Path, content_root: Path) -> subprocess.CompletedProcess[str]:
    labs = tmp_path / "no-labs" / "labs"
    labs.mkdir(parents=True, exist_ok=True)
    return studyapp_cli("check", "--content", str(content_root), env={"STUDYAPP_LABS": str(labs)})


def test_check_fails_on_a_planted_cue_and_names_its_items(studyapp_cli, tmp_path: Path) -> None:
    path, text = fixture_bank(tmp_path, planted=True)
    result = check(studyapp_cli, tmp_path, path.parent.parent)
    assert result.returncode == 2, result.stdout + result.stderr
    cue_lines = [
        line for line in result.stderr.splitlines() if "learned cue: statement ends '…않는다'" in line
    ]
    assert len(cue_lines) == 1, result.stderr
    # It points at the first X statement carrying it (demo-002 is the fixture's first X item).
    assert cue_lines[0].startswith(f"{path}:{line_of(text, 'id: demo-002')}: learned cue")
    assert "chance 50%" in cue_lines[0] and "demo-002" in cue_lines[0]
    assert "learned cues: a classifier" in result.stdout


def test_check_passes_the_same_statements_without_the_cue(studyapp_cli, tmp_path: Path) -> None:
    path, _ = fixture_bank(tmp_path, planted=False)
    result = check(studyapp_cli, tmp_path, path.parent.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "learned cue:" not in result.stdout + result.stderr
    assert "learned cues: a classifier" in result.stdout  # the figures are printed all the same


# -- issue 32's "done when" on the shipped bank ---------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_report():
    report = learned_cue_report(load_content(REPO / "content").items.values())
    assert report is not None
    return report


def test_shipped_bank_has_no_learned_cue(shipped_report) -> None:
    report = shipped_report
    leaning = "; ".join(learned_cues.format_report(report, top=8))
    assert not report.model_flagged, leaning
    assert report.flagged == [], leaning


def test_shipped_bank_concessive_clauses_no_longer_predict_the_key(shipped_report) -> None:
    """The content reviews' cue (16 X against 6 O in four topics): balanced now."""
    (cue,) = [cue for cue in shipped_report.judged if cue.feature == learned_cues.CONCESSIVE_FAMILY]
    assert cue.held_out <= shipped_report.chance + MARGIN, cue
