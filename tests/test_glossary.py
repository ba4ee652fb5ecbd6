"""The glossary (content/glossary.yaml) and its question kind, "다음 설명에 해당하는 것은?": the
reader's problems as FILE:LINE, the cache, drawing options, grading into FSRS, the feedback, the
engine's kinds and mixes, the mock exam, `--dump --json` and `--plain` — on the demo content."""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from studyapp.cli.plain import format_feedback, format_summary
from studyapp.content.cache import load_cached
from studyapp.content.glossary import askable_terms, distractor_candidates, names_itself
from studyapp.content.loader import check_content, load_content
from studyapp.content.model import Content, Term
from studyapp.i18n import Translator
from studyapp.progress import exams
from studyapp.progress.scheduler import Grade
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions, select_questions
from studyapp.quiz.exam import ExamSession, ExamSettings, retry_questions
from studyapp.quiz.exam_text import result_lines
from studyapp.quiz.glossary import build_glossary_question, generate_glossary_questions
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.questions import GLOSSARY_STEM, KIND_GLOSSARY, all_questions, question_from_term
from studyapp.quiz.questions import KIND_GLOSSARY as QUESTION_KIND
from studyapp.report.readiness import checklist_readiness
from studyapp.report.stats import progress_report, topic_stats
from tests.conftest import REPO, FakeClock, run_cli
from tests.helpers_content import GLOSSARY, line_of, write_content, write_glossary

KO = Translator("ko")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_glossary(write_content(tmp_path / "content"))


@pytest.fixture
def content(root: Path) -> Content:
    return load_content(root)


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> ProgressStore:
    return ProgressStore(tmp_path / "p.db", clock)


def glossary_problems(tmp_path: Path, text: str) -> list[str]:
    root = write_glossary(write_content(tmp_path / "content"), text)
    _, problems = check_content(root)
    return [p.format(root) for p in problems if not p.warning]


def session(content: Content, store: ProgressStore, **options: object) -> QuizSession:
    settings = {"mode": "new", "kind": "glossary", "seed": 1, **options}
    return QuizSession(content, store, SessionOptions(**settings))  # type: ignore[arg-type]


def key_number(question) -> str:  # type: ignore[no-untyped-def]
    return str(question.glossary.answer_index + 1)


def wrong_number(question) -> str:  # type: ignore[no-untyped-def]
    return str((question.glossary.answer_index + 1) % 4 + 1)


# -- the file ---------------------------------------------------------------------------------------


def test_the_demo_glossary_loads_and_is_cached(root: Path, tmp_path: Path) -> None:
    content, problems = check_content(root)
    assert problems == [] and content is not None
    stub = content.glossary["test-stub"]
    assert (stub.term, stub.term_en, stub.topic) == ("테스트 스텁", "test stub", "demo")
    assert stub.confused_with == ("test-driver", "mock-object")
    assert stub.label == "테스트 스텁 (test stub)"
    assert stub.location.line == line_of(GLOSSARY, "id: test-stub")
    first = load_cached(root, tmp_path / "cache")  # written to the cache …
    again = load_cached(root, tmp_path / "cache")  # … and read back from it
    assert again.glossary == first.glossary == content.glossary


def test_no_glossary_file_is_no_glossary(tmp_path: Path) -> None:
    content = load_content(write_content(tmp_path / "content"))
    assert content.glossary == {}
    assert not any(q.kind == QUESTION_KIND for q in all_questions(content).values())


def _entry(text: str, term_id: str) -> int:
    return line_of(text, f"id: {term_id}")


def test_missing_and_unknown_fields(tmp_path: Path) -> None:
    text = GLOSSARY.replace("    term_en: test driver\n", "").replace(
        "    term_en: mock object\n", "    term_en: mock object\n    example: 예시\n"
    )
    found = glossary_problems(tmp_path, text)
    assert (
        f"glossary.yaml:{_entry(text, 'test-driver')}: glossary term: missing required field 'term_en'"
        in found
    )
    assert f"glossary.yaml:{line_of(text, 'example:')}: glossary term: unknown field 'example'" in found


def test_duplicate_ids_and_names(tmp_path: Path) -> None:
    text = GLOSSARY + (
        "  - id: test-stub\n    term: 다른 스텁\n    term_en: other stub\n    topic: demo\n"
        "    definition: 임시로 값을 돌려준다.\n"
        "  - id: stub-again\n    term: 테스트스텁\n    term_en: Fake Module\n    topic: demo\n"
        "    definition: 하위 모듈 대신 값을 돌려주는 것.\n"
        "  - id: driver-again\n    term: 드라이버\n    term_en: TEST DRIVER\n    topic: demo\n"
        "    definition: 상위 모듈 대신 호출하는 것.\n"
    )
    found = glossary_problems(tmp_path, text)
    duplicate = text.rindex("  - id: test-stub")
    dup_line = text[:duplicate].count("\n") + 1
    first = _entry(GLOSSARY, "test-stub")
    assert any(
        p.startswith(f"glossary.yaml:{dup_line}: duplicate glossary term id 'test-stub' (first defined at")
        and p.endswith(f"glossary.yaml:{first})")
        for p in found
    ), found
    # The same name with other spacing or case is the same term.
    assert any(
        p.startswith(
            f"glossary.yaml:{_entry(text, 'stub-again')}: glossary term 'stub-again': the name '테스트스텁'"
        )
        for p in found
    ), found
    assert any(
        p.startswith(
            f"glossary.yaml:{_entry(text, 'driver-again')}: glossary term 'driver-again': the name 'TEST DRIVER' "
            "is already the term 'test-driver'"
        )
        for p in found
    ), found


def test_unknown_topic_and_bad_links(tmp_path: Path) -> None:
    text = (
        GLOSSARY.replace(
            "    topic: demo\n    definition: 실행 결과가", "    topic: nowhere\n    definition: 실행 결과가"
        )
        .replace("confused_with: [test-stub, test-harness]", "confused_with: [test-stub, no-such-term]")
        .replace("confused_with: [test-stub]\n", "confused_with: [mock-object, test-stub, test-stub]\n")
    )
    found = glossary_problems(tmp_path, text)
    assert (
        f"glossary.yaml:{line_of(text, 'topic: nowhere')}: glossary term 'test-oracle': unknown topic 'nowhere' "
        "(topics: demo)"
    ) in found
    links = line_of(text, "no-such-term")
    assert (
        f"glossary.yaml:{links}: glossary term 'test-driver': confused_with names an unknown term 'no-such-term'"
        in found
    )
    own = line_of(text, "[mock-object, test-stub, test-stub]")
    assert (
        f"glossary.yaml:{own}: glossary term 'mock-object': confused_with names the term itself "
        "(it would be its own distractor)"
    ) in found
    assert f"glossary.yaml:{own}: glossary term 'mock-object': confused_with lists 'test-stub' twice" in found


def test_too_few_terms_to_draw_three_distractors(tmp_path: Path) -> None:
    """A term needs three others among its confusables and its topic: with two, no question."""
    text = "terms:\n" + "".join(GLOSSARY.split("  - id: ")[i].join(("  - id: ", "")) for i in (1, 2, 3))
    text = text.replace(", mock-object]", "]")
    found = glossary_problems(tmp_path, text)
    for term_id in ("test-stub", "test-driver", "test-harness"):
        assert (
            f"glossary.yaml:{_entry(text, term_id)}: glossary term '{term_id}': only 2 other term(s) to draw "
            "distractors from (its confused_with and topic 'demo'); a 4-choice question needs 3"
        ) in found, found


def test_a_definition_that_names_its_own_term(tmp_path: Path) -> None:
    text = GLOSSARY.replace(
        "definition: 하향식 통합 테스트에서", "definition: 테스트 스텁은 하향식 통합 테스트에서"
    ).replace("definition: 호출 여부와", "definition: A Mock Object records 호출 여부와")
    found = glossary_problems(tmp_path, text)
    assert (
        f"glossary.yaml:{line_of(text, '테스트 스텁은 하향식')}: glossary term 'test-stub': the definition names "
        "the term itself ('테스트 스텁'): the question would give its answer away"
    ) in found
    assert any("'mock-object': the definition names the term itself ('mock object')" in p for p in found)


def test_naming_itself_is_about_whole_names() -> None:
    assert names_itself("테스트 스텁", "테스트스텁을 쓴다")  # spacing ignored, a particle attached
    assert names_itself("mock", "A MOCK records calls")  # case ignored
    assert not names_itself("mock", "mocking a module")  # an English name only as a whole word
    assert names_itself("AUC", "the PR-AUC baseline")  # a hyphen is a word edge
    assert not names_itself("AUC", "two PR-AUCs")


def test_file_level_problems(tmp_path: Path) -> None:
    assert glossary_problems(tmp_path / "a", "terms: []\n") == [
        "glossary.yaml:1: glossary file: 'terms' must be a non-empty list"
    ]
    assert glossary_problems(tmp_path / "b", "- just a list\n") == [
        "glossary.yaml:1: glossary file must be a mapping, got a list"
    ]
    assert glossary_problems(tmp_path / "c", "words:\n  - a\n") == [
        "glossary.yaml:1: glossary file: missing required field 'terms'",
        "glossary.yaml:1: glossary file: unknown field 'words'",
    ]
    escape = GLOSSARY.replace(  # a quoted YAML string can spell ESC; the loader refuses it
        "definition: 호출 여부와 인자 같은 상호작용을 기록해 기대한 대로 불렸는지 검증하게 해 주는 대역 객체.",
        'definition: "호출을 기록하는 대역 객체.\\e]0;title\\a"',
    )
    found = glossary_problems(tmp_path / "d", escape)
    assert (
        f"glossary.yaml:{line_of(escape, 'title')}: text holds the control character U+001B: remove it (only newline and tab are allowed)"
        in found
    ), found
    anchor = GLOSSARY.replace("topic: demo\n    definition: 하향식", "topic: &t demo\n    definition: 하향식")
    found = glossary_problems(tmp_path / "e", anchor)
    assert any("anchors and aliases are not allowed" in p for p in found), found


def test_check_command_reports_the_glossary(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    main = importlib.import_module("studyapp.cli.main")  # the package exports a function of that name
    # The labs' exercises name the shipped checklist, which the demo content does not have.
    monkeypatch.setattr(
        importlib.import_module("studyapp.cli.content"), "metadata_problems", lambda content, labs: []
    )  # `check` lives in cli/content.py (the command table imports one module per command)
    assert main.main(["--content", str(root), "check"]) == 0
    assert "glossary: 7 terms" in capsys.readouterr().out
    text = GLOSSARY.replace("    term: 목 객체\n", "")
    (root / "glossary.yaml").write_text(text, encoding="utf-8")
    assert main.main(["--content", str(root), "check"]) == 2
    line = _entry(text, "mock-object")
    assert f"glossary.yaml:{line}: glossary term: missing required field 'term'" in capsys.readouterr().err


# -- the questions ----------------------------------------------------------------------------------


def test_askable_terms_are_those_with_three_distractor_candidates() -> None:
    """`askable_terms` counts in one pass what `distractor_candidates` lists term by term."""
    rng = random.Random(5)
    for _ in range(300):
        ids = [f"t{n}" for n in range(rng.randint(1, 9))]
        glossary = {
            i: Term(
                i, f"용어 {i}", f"term {i}", rng.choice("abc"), "정의.",
                tuple(rng.sample([*ids, "gone"], rng.randint(0, min(3, len(ids) + 1)))),
            )
            for i in ids
        }  # fmt: skip
        expected = [t for t in glossary.values() if sum(map(len, distractor_candidates(t, glossary))) >= 3]
        assert askable_terms(glossary) == expected, glossary


def test_distractors_come_from_confused_with_then_the_topic(content: Content) -> None:
    import random

    stub = content.glossary["test-stub"]
    for seed in range(20):
        question = build_glossary_question(stub, content.glossary, random.Random(seed))
        assert question is not None
        ids = [term.id for term in question.options]
        assert len(set(ids)) == 4 and question.options[question.answer_index] is stub
        assert {"test-driver", "mock-object"} <= set(ids)  # both confusables, every time
    positions = {
        build_glossary_question(stub, content.glossary, random.Random(seed)).answer_index  # type: ignore[union-attr]
        for seed in range(20)
    }
    assert len(positions) > 1  # the key does not sit in one place


def test_a_glossary_session_asks_every_term_once(content: Content, store: ProgressStore) -> None:
    quiz = session(content, store)
    assert quiz.total == 7 and {q.kind for q in quiz.queue} == {QUESTION_KIND}
    assert sorted(q.id for q in quiz.queue) == sorted(f"gl-{term_id}" for term_id in content.glossary)
    first = quiz.current
    assert first is not None and first.glossary is not None
    assert first.prompt == f"{GLOSSARY_STEM}\n{first.glossary.key.definition}"
    lines = kind_of(first).option_lines(first)
    assert len(lines) == 4 and lines[first.glossary.answer_index].endswith(first.glossary.key.label)
    assert kind_of(first).input == "pick" and kind_of(first).label_key == "glossary.label"


def test_grading_stores_fsrs_reviews_under_the_terms_ids(content: Content, store: ProgressStore) -> None:
    quiz = session(content, store)
    right = quiz.current
    assert right is not None
    feedback = quiz.answer(key_number(right))
    assert feedback is not None and feedback.correct and feedback.grade == Grade.GOOD
    (review,) = store.reviews()
    assert (review.item_id, review.kind, review.correct) == (right.id, "glossary", True)
    assert review.answer == right.glossary.key.id  # type: ignore[union-attr]
    assert store.schedules()[right.id].text_hash == question_from_term(right.glossary.key).text_hash  # type: ignore[union-attr]

    missed = quiz.current
    assert missed is not None and missed.glossary is not None
    picked = missed.glossary.options[int(wrong_number(missed)) - 1]
    feedback = quiz.answer(wrong_number(missed))
    assert feedback is not None and not feedback.correct and feedback.grade == Grade.AGAIN
    lapses = store.reviews()[1:]
    assert [(r.item_id, r.correct) for r in lapses] == [(missed.id, False), (f"gl-{picked.id}", False)]

    unsure = quiz.current
    assert unsure is not None
    assert quiz.answer(key_number(unsure), unsure=True).grade == Grade.HARD  # type: ignore[union-attr]
    dont_know = quiz.current
    assert quiz.answer("") is None and quiz.answer("5") is None and quiz.answer("x") is None
    feedback = quiz.answer("", unsure=True)  # 0 in the TUI, "?" in --plain: "don't know"
    assert feedback is not None and feedback.picked is None and not feedback.correct
    assert store.reviews()[-1].item_id == dont_know.id  # type: ignore[union-attr]
    assert quiz.undo() is not None and quiz.undo() is not None and quiz.undo() is not None
    assert store.review_count() == 1  # the miss stored two reviews; undo took both back


def test_feedback_explains_all_four_terms(content: Content, store: ProgressStore) -> None:
    quiz = session(content, store)
    question = quiz.current
    assert question is not None and question.glossary is not None
    feedback = quiz.answer(wrong_number(question))
    assert feedback is not None
    view = kind_of(question).feedback(feedback, content, KO)
    assert view.answer == f"정답은 {key_number(question)}번"
    assert view.response == f"내 선택: {wrong_number(question)}번"
    assert [b.heading for b in view.blocks] == [
        f"{n}) {term.term} ({term.term_en})" for n, term in enumerate(question.glossary.options, start=1)
    ]
    assert [b.text for b in view.blocks] == [term.definition for term in question.glossary.options]
    assert [b.true_statement for b in view.blocks] == [n == question.glossary.answer_index for n in range(4)]
    assert view.blocks[question.glossary.answer_index].tags == ("정답",)
    lines = "\n".join(format_feedback(feedback, content, KO))
    for term in question.glossary.options:
        assert term.term_en in lines and term.definition in lines
    summary = "\n".join(format_summary(quiz.summary(), content, KO))
    key = question.glossary.key
    assert f"[{question.id}] {key.definition} → {key_number(question)}) {key.label}" in summary
    assert question.answer == key_number(question)  # like a 4-choice question's: the key's number


def test_a_missed_term_comes_back_when_due(content: Content, store: ProgressStore, clock: FakeClock) -> None:
    quiz = session(content, store, count=1)
    question = quiz.current
    assert question is not None
    quiz.answer(wrong_number(question))
    clock.advance(days=2)
    due = select_questions(content, store, SessionOptions(mode="due", kind="glossary", seed=2), clock.now)
    assert due[0].id == question.id
    again = QuizSession(content, store, SessionOptions(mode="wrong", kind="glossary"))
    assert question.id in [q.id for q in again.queue] and all(q.glossary for q in again.queue)


def test_kinds_and_mixes(content: Content, store: ProgressStore) -> None:
    mixed = QuizSession(content, store, SessionOptions(mode="new", kind="mixed", count=40, seed=3))
    kinds = Counter(q.kind for q in mixed.queue)
    assert kinds[QUESTION_KIND] == 7 and kinds["ox"] and kinds["choice"]  # the terms take their share
    for kind in (None, "ox", "choice", "drill"):
        queue = QuizSession(content, store, SessionOptions(mode="cram", kind=kind, seed=3)).queue
        assert QUESTION_KIND not in {q.kind for q in queue}, kind
    bank_only = SessionOptions(mode="cram", kind="mixed", include_drills=False, seed=3)  # --no-drills
    assert QUESTION_KIND not in {q.kind for q in QuizSession(content, store, bank_only).queue}
    terms_anyway = SessionOptions(mode="cram", kind="glossary", include_drills=False, seed=3)
    assert QuizSession(content, store, terms_anyway).total == 7
    topic = session(content, store, topic="demo")
    assert topic.total == 7
    assert session(content, store, checklist="demo-check").total == 0  # terms link no checklist item


def test_a_mixed_session_draws_term_options_after_the_first_question(
    root: Path, content: Content, store: ProgressStore
) -> None:
    """Start-up to the first question is measured: a mixed session paints a question that is not a
    term, and draws the terms' options (loading their generator) in `prepare`, after the paint."""
    for seed in range(6):
        mixed = QuizSession(content, store, SessionOptions(mode="cram", kind="mixed", seed=seed))
        first = mixed.current
        assert first is not None and first.kind != QUESTION_KIND, seed
        waiting = [q for q in mixed._queue if q.kind == QUESTION_KIND]
        assert waiting and all(q.glossary is None for q in waiting)  # nothing drawn yet
        assert all(q.glossary for q in mixed.queue if q.kind == QUESTION_KIND)  # `queue` prepares
        assert mixed.current == first
    code = f"""
import sys, tempfile
from pathlib import Path
from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions
content = load_content(Path({str(root)!r}))
store = ProgressStore(Path(tempfile.mkdtemp()) / "p.db")
session = QuizSession(content, store, SessionOptions(mode="cram", kind="mixed", seed=1))
before = "studyapp.quiz.glossary" in sys.modules
session.prepare()
print(before, "studyapp.quiz.glossary" in sys.modules)
"""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_a_mixed_session_of_terms_alone_asks_its_first_at_once(
    content: Content, store: ProgressStore
) -> None:
    quiz = session(content, store, count=2)
    quiz.answer(wrong_number(quiz.current))
    quiz.answer(wrong_number(quiz.current))
    misses = QuizSession(content, store, SessionOptions(mode="wrong", kind="mixed", seed=1))
    first = misses.current
    assert first is not None and first.kind == QUESTION_KIND and first.glossary is not None
    assert misses.answer(key_number(first)) is not None


def test_a_question_whose_term_is_gone_is_left_out(content: Content, store: ProgressStore) -> None:
    queue = list(session(content, store).queue)
    shrunk = Content(
        **{**content.__dict__, "glossary": {k: v for k, v in content.glossary.items() if k != "test-oracle"}}
    )
    base = [question_from_term(content.glossary[k]) for k in ("test-oracle", "test-stub")]
    survivors = QuizSession(shrunk, store, SessionOptions(), questions=base).queue
    assert [q.id for q in survivors] == ["gl-test-stub"] and survivors[0].glossary is not None
    kept = QuizSession(content, store, SessionOptions(), questions=queue[:2]).queue
    assert [q.glossary for q in kept] == [q.glossary for q in queue[:2]]  # drawn options are kept


def test_stats_and_readiness_take_the_new_ids(
    content: Content, store: ProgressStore, clock: FakeClock
) -> None:
    quiz = session(content, store)
    quiz.answer(key_number(quiz.current))
    quiz.answer(wrong_number(quiz.current))
    (demo,) = topic_stats(content, store, clock.now)
    assert demo.items == 20 + 7 and demo.seen == 3  # the key, the missed key and the term picked
    report = progress_report(content, store, clock.now)
    assert report["reviews_total"] == 3 and report["topics"]["demo"]["items"] == 27
    (entry,) = checklist_readiness(content, store, clock.now, exercises={})
    assert entry.evidence["quiz"]["items"] == 20  # terms are linked to no checklist item


# -- the mock exam ----------------------------------------------------------------------------------


def test_a_mock_exam_mixes_in_glossary_questions(
    content: Content, store: ProgressStore, clock: FakeClock
) -> None:
    fifth = ExamSession(content, store, ExamSettings(count=5, seed=4))
    assert [q.kind for q in fifth.questions].count(KIND_GLOSSARY) == 1  # a fifth of the questions
    # The demo bank makes six 4-choice questions at most (how many a draw gets depends on the
    # generator's balancing, five with this seed): terms fill the rest of ten.
    exam = ExamSession(content, store, ExamSettings(count=10, seed=4, schedule=True), clock=clock)
    terms = [q for q in exam.questions if q.kind == KIND_GLOSSARY]
    choices = [q for q in exam.questions if q.kind == "choice"]
    assert exam.kind == "choice" and len(exam.questions) == 10 and 0 < len(choices) <= 6
    assert len(terms) == 10 - len(choices) >= 2  # at least the share, 10 × GLOSSARY_SHARE
    question = terms[0]
    number = exam.questions.index(question) + 1
    assert question.stem.startswith(GLOSSARY_STEM) and len(question.options) == 4
    assert all(o.item_id.startswith("gl-") for o in question.options)
    exam.go(number)
    wrong = str(int(question.answer) % 4 + 1)
    assert exam.answer(wrong)
    other = exam.questions.index(terms[1]) + 1
    exam.go(other)
    assert exam.answer(terms[1].answer)
    result = exam.submit()
    text = "\n".join(result_lines(result, content, KO))
    missed_key = question.source.key
    for option in question.options:  # every term of the missed question, with its definition
        assert option.text in text and option.explanation in text
    assert f"{missed_key.label}" in text
    reviews = [r for r in store.reviews() if r.kind == "glossary"]
    picked = question.options[int(wrong) - 1].item_id
    assert sorted((r.item_id, r.correct) for r in reviews) == sorted(
        [(f"gl-{missed_key.id}", False), (picked, False), (terms[1].source.id, True)]
    )
    attempt = exams.find_attempt(store, result.attempt_id)
    assert any(row["kind"] == KIND_GLOSSARY for row in attempt.questions)
    retried = retry_questions(content, attempt, random.Random(3))
    again = next(q for q in retried if q.kind == KIND_GLOSSARY)
    # Around the same term with the key elsewhere, as a 4-choice retry (the review's N15): a
    # retry tests the term, not where its answer sat.
    assert again.source.key == missed_key and again.answer != question.answer
    assert len(set(again.item_ids)) == 4 and all(i.startswith("gl-") for i in again.item_ids)
    assert again.item_ids[int(again.answer) - 1] == f"gl-{missed_key.id}"
    assert again.stem == question.stem and again.source is not None


def test_exam_glossary_only_and_filters(content: Content, store: ProgressStore, tmp_path: Path) -> None:
    only = ExamSession(content, store, ExamSettings(count=5, kind=KIND_GLOSSARY, seed=1))
    assert [q.kind for q in only.questions] == [KIND_GLOSSARY] * 5 and only.kind == "choice"
    linked = ExamSession(content, store, ExamSettings(count=10, seed=1, checklist="demo-check"))
    assert KIND_GLOSSARY not in {q.kind for q in linked.questions}  # terms link no checklist item
    bare = load_content(write_content(tmp_path / "bare"))
    plain = ExamSession(bare, store, ExamSettings(count=10, seed=1))
    assert KIND_GLOSSARY not in {q.kind for q in plain.questions}  # no glossary, no terms


def test_generated_questions_do_not_repeat_a_key(content: Content) -> None:
    import random

    questions = generate_glossary_questions(content.glossary, 20, random.Random(5))
    assert len(questions) == 7 and len({q.key.id for q in questions}) == 7
    assert generate_glossary_questions(content.glossary, 3, random.Random(5), topics={"other"}) == []


# -- the command line -------------------------------------------------------------------------------


def test_dump_json_has_the_four_choice_shape(root: Path, isolated_home: Path) -> None:
    args = ("--content", str(root), "quiz", "--kind", "glossary", "--dump", "3", "--json", "--seed", "1")
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    glossary = load_content(root).glossary
    assert len(data) == 3
    for entry in data:
        assert {"id", "stem", "kind", "topic", "options", "answer"} <= set(entry)
        assert entry["kind"] == "glossary" and 0 <= entry["answer"] < 4 and len(entry["options"]) == 4
        key = glossary[entry["options"][entry["answer"]]["term_id"]]
        assert entry["stem"] == f"{GLOSSARY_STEM}\n{key.definition}" and entry["id"] == f"gl-{key.id}"
        for option in entry["options"]:
            assert option["item_id"] == f"gl-{option['term_id']}"
            assert option["text"] == glossary[option["term_id"]].label
    assert not (isolated_home / "progress.db").exists()
    assert run_cli(*args).stdout == result.stdout  # a seed reproduces the dump
    text = run_cli(*args[:-3], "--seed", "1")
    assert text.returncode == 0 and text.stdout.count("  *") == 3
    for entry in data:
        key = entry["options"][entry["answer"]]
        assert f"*{entry['answer'] + 1}) {key['text']}  [{key['item_id']}]" in text.stdout


def test_glossary_kind_without_a_glossary_is_a_usage_error(tmp_path: Path) -> None:
    bare = write_content(tmp_path / "content")
    for extra in (["--dump", "2"], ["--plain"]):
        result = run_cli("--content", str(bare), "quiz", "--kind", "glossary", *extra)
        assert result.returncode == 2 and "no glossary" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_plain_glossary_session(root: Path) -> None:
    result = run_cli(
        "--content", str(root), "--lang", "ko", "quiz", "--plain", "--kind", "glossary",
        "--mode", "new", "--count", "2", "--seed", "1",
        input_text="o\n1\n?\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count(f"]\n{GLOSSARY_STEM}\n") == 3  # the first question is asked again after "o"
    assert "1~4 중 번호로 답하세요" in out and "  1) " in out and "(2/2)" in out
    # "?" alone: don't know, in the catalogue's words (main's walkthrough renamed 고르지 않음);
    # in brackets, as the feedback line has it (the prompt names the word too)
    assert out.count("← 정답") == 2 and f"({KO('choice.no_pick')})" in out
    assert "정답은" in out and "요약: " in out and "/2 정답" in out
