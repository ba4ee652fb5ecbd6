"""4-choice questions: generation rules on the shipped bank, FSRS grading, the CLI and --plain."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from studyapp.content.cues import choice_cue_score
from studyapp.content.loader import load_content
from studyapp.content.similarity import SimilarityIndex
from studyapp.progress.scheduler import Grade
from studyapp.progress.store import ProgressStore
from studyapp.quiz.choice import (
    KIND_CORRECT,
    KIND_INCORRECT,
    LENGTH_BAND,
    STEMS,
    ChoiceBuilder,
    as_question,
    build_choice_question,
    choice_case,
    choice_credits,
    generate_choice_questions,
    grade_choice,
    lengths_alike,
    retry_choice_questions,
    stem_for,
    topic_titles,
)
from studyapp.quiz.engine import QuizSession, SessionOptions
from studyapp.quiz.questions import KIND_CHOICE, KIND_DRILL, KIND_OX, all_questions, parse_pick
from tests.conftest import REPO, FakeClock, InProcessCli

AGAIN, HARD, GOOD = Grade.AGAIN, Grade.HARD, Grade.GOOD


@pytest.fixture(scope="module")
def shipped():
    return load_content(REPO / "content")


@pytest.fixture(scope="module")
def index(shipped) -> SimilarityIndex:
    return SimilarityIndex(shipped.items.values())


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> ProgressStore:
    return ProgressStore(tmp_path / "p.db", clock)


def assert_well_formed(question, index: SimilarityIndex) -> None:
    key = question.key
    assert len(question.options) == 4 and len({i.id for i in question.options}) == 4
    assert question.stem == STEMS[question.kind]
    assert key.answer == ("O" if question.kind == KIND_CORRECT else "X")
    assert all(item.answer != key.answer for item in question.distractors)
    assert {item.topic for item in question.options} == {question.topic}
    for first, second in itertools.combinations(question.options, 2):
        assert first.id not in second.siblings and second.id not in first.siblings
        assert not index.too_close(first.id, second.id), (first.id, second.id)


def test_generated_questions_follow_the_exam_rules(shipped, index) -> None:
    questions = generate_choice_questions(shipped.items.values(), 60, random.Random(4))
    assert len(questions) == 60
    for question in questions:
        assert_well_formed(question, index)
    assert len({q.key.id for q in questions}) == 60  # no item is the key twice
    kinds = Counter(q.kind for q in questions)
    assert abs(kinds[KIND_CORRECT] - kinds[KIND_INCORRECT]) <= 2  # both stems, about equally
    assert set(Counter(q.answer_index for q in questions)) == {0, 1, 2, 3}  # shuffled
    assert len({q.topic for q in questions}) == len(shipped.topics)


def test_a_seed_reproduces_the_questions_and_a_topic_limits_them(shipped) -> None:
    first = generate_choice_questions(shipped.items.values(), 10, random.Random(9))
    again = generate_choice_questions(shipped.items.values(), 10, random.Random(9))
    other = generate_choice_questions(shipped.items.values(), 10, random.Random(10))
    assert [q.to_dict() for q in first] == [q.to_dict() for q in again]
    assert [q.id for q in first] != [q.id for q in other]
    topic = next(iter(shipped.topics))
    only = generate_choice_questions(shipped.items.values(), 5, random.Random(1), topic=topic)
    assert only and {q.topic for q in only} == {topic}


def test_siblings_and_near_duplicates_never_share_a_question(shipped) -> None:
    # Declare every O item of one topic a sibling of the first X item: that X item can then only
    # be asked with none of them, so it is never the key of "옳지 않은 것은?" (needs three O items).
    topic = "bottleneck-analysis" if "bottleneck-analysis" in shipped.topics else next(iter(shipped.topics))
    items = {i.id: i for i in shipped.items.values() if i.topic == topic}
    lonely = next(i for i in sorted(items.values(), key=lambda i: i.id) if i.answer == "X")
    o_ids = [i.id for i in items.values() if i.answer == "O"]
    items[lonely.id] = replace(lonely, siblings=tuple(o_ids))
    builder = ChoiceBuilder(items.values())
    assert builder.question_for(items[lonely.id], random.Random(1)) is None
    for seed in range(30):
        for question in generate_choice_questions(items.values(), 8, random.Random(seed), builder=builder):
            ids = {item.id for item in question.options}
            assert not (lonely.id in ids and ids & set(o_ids)), question.id
    # A verbatim copy of an item is never drawn next to it.
    original = items[o_ids[0]]
    items["zz-copy"] = replace(original, id="zz-copy", statement=original.statement + "!")
    builder = ChoiceBuilder(items.values())
    for seed in range(30):
        for question in generate_choice_questions(items.values(), 8, random.Random(seed), builder=builder):
            assert not {original.id, "zz-copy"} <= {item.id for item in question.options}


def test_a_topic_too_small_yields_fewer_questions(shipped) -> None:
    topic = next(iter(shipped.topics))
    o_items = [i for i in shipped.items.values() if i.topic == topic and i.answer == "O"]
    x_items = [i for i in shipped.items.values() if i.topic == topic and i.answer == "X"]
    pool = o_items[:1] + x_items[:3]  # exactly one "옳은 것은?" question, nothing more
    questions = generate_choice_questions(pool, 5, random.Random(0))
    assert len(questions) <= 1
    with pytest.raises(ValueError):
        build_choice_question(o_items[0], x_items[:2], random.Random(0))


def grades_by_role(question, picked: int | None, unsure: bool = False) -> dict[str, Grade]:
    names = {question.key.id: "key"}
    for number, item in enumerate(question.distractors):
        names[item.id] = f"d{number}"
    return {names[item_id]: grade for item_id, grade in grade_choice(question, picked, unsure)}


def test_grading_design(shipped) -> None:
    question = generate_choice_questions(shipped.items.values(), 1, random.Random(2))[0]
    key = question.answer_index
    wrong = (key + 1) % 4
    picked_name = {item.id: n for n, item in enumerate(question.distractors)}[question.options[wrong].id]
    # Right and sure: Good for the key, Hard for every distractor (judged by elimination only).
    assert grades_by_role(question, key) == {"key": GOOD, "d0": HARD, "d1": HARD, "d2": HARD}
    # Right but unsure: Hard for the key; the distractors taught nothing certain.
    assert grades_by_role(question, key, unsure=True) == {"key": HARD}
    # A wrong pick: a lapse for the misjudged statement and for the missed key; others untouched.
    assert grades_by_role(question, wrong) == {"key": AGAIN, f"d{picked_name}": AGAIN}
    assert grades_by_role(question, wrong, unsure=True) == {"key": AGAIN, f"d{picked_name}": AGAIN}
    # "Don't know": the key was not found.
    assert grades_by_role(question, None) == {"key": AGAIN}
    assert grade_choice(question, key)[0] == (question.key.id, GOOD)  # key first
    with pytest.raises(ValueError):
        grade_choice(question, 4)


def test_credits_store_the_implied_ox_answer(shipped) -> None:
    for kind in (KIND_CORRECT, KIND_INCORRECT):
        question = next(
            q
            for q in generate_choice_questions(shipped.items.values(), 10, random.Random(5))
            if q.kind == kind
        )
        credits = {c.item_id: c for c in choice_credits(question, question.answer_index)}
        # A right pick implies each statement's true answer.
        assert all(credits[item.id].implied_answer == item.answer for item in question.options)
        wrong = (question.answer_index + 1) % 4
        credits = {c.item_id: c for c in choice_credits(question, wrong)}
        assert credits[question.key.id].implied_answer != question.key.answer
        assert credits[question.options[wrong].id].implied_answer != question.options[wrong].answer


def test_parse_pick() -> None:
    assert parse_pick("3") == 2 and parse_pick(" 1? ") == 0 and parse_pick("?") is None
    for bad in ("0", "5", "o", "x", "１", "1.5"):
        with pytest.raises(ValueError):
            parse_pick(bad)


def test_engine_records_one_review_per_credited_option_and_undo_takes_all_back(shipped, store) -> None:
    # A seed whose three keys all make clean questions (a key that cannot stays O/X): the first
    # such seed of the bank as it is, so a content edit does not break the test.
    for seed in range(100):
        session = QuizSession(shipped, store, SessionOptions(mode="new", kind="choice", count=3, seed=seed))
        if all(q.kind == KIND_CHOICE for q in session.queue):
            break
    assert session.total == 3 and all(q.kind == KIND_CHOICE for q in session.queue)
    question = session.current
    assert question is not None and question.choice is not None
    assert session.answer("9") is None and session.answer("") is None  # unreadable: nothing stored
    assert store.review_count() == 0
    feedback = session.answer(question.answer)  # the right number
    assert feedback is not None and feedback.correct and feedback.picked == question.choice.answer_index
    reviews = store.reviews()
    assert {r.item_id for r in reviews} == {i.id for i in question.choice.options}
    assert {r.kind for r in reviews} == {"choice"}
    assert sorted(r.rating for r in reviews) == [HARD, HARD, HARD, GOOD]
    assert set(store.schedules()) == {i.id for i in question.choice.options}
    assert session.undo() is question
    assert store.review_count() == 0 and store.schedules() == {}
    # A wrong pick, then "don't know" (unsure, no number).
    session.answer(str((question.choice.answer_index + 1) % 4 + 1))
    assert store.review_count() == 2
    second = session.current
    assert second is not None and second.choice is not None
    feedback = session.answer("", unsure=True)
    assert feedback is not None and not feedback.correct and feedback.picked is None
    assert store.review_count() == 3
    assert store.reviews(second.choice.key.id)[0].rating == AGAIN
    summary = session.summary()
    assert summary.answered == 2 and summary.correct == 0


def test_mixed_session_asks_every_third_ox_item_as_a_choice_and_never_twice(shipped, store) -> None:
    session = QuizSession(shipped, store, SessionOptions(mode="new", kind="mixed", count=12, seed=3))
    kinds = [q.kind for q in session.queue]
    assert KIND_CHOICE in kinds and KIND_OX in kinds
    asked: list[str] = []
    for question in session.queue:
        asked += [i.id for i in question.choice.options] if question.choice else [question.id]
    assert len(asked) == len(set(asked))  # an option's item is not asked again as O/X
    ox_only = QuizSession(shipped, store, SessionOptions(mode="new", kind="ox", count=12, seed=3))
    assert {q.kind for q in ox_only.queue} == {KIND_OX}
    drills = QuizSession(shipped, store, SessionOptions(mode="cram", kind="drill", count=5, seed=3))
    assert drills.total == 5 and {q.kind for q in drills.queue} == {KIND_DRILL}


# -- the command line ---------------------------------------------------------------------------


def test_dump_json_prints_questions_and_touches_no_progress(
    isolated_home: Path, shipped, studyapp_cli: InProcessCli
) -> None:
    result = studyapp_cli("quiz", "--kind", "choice", "--dump", "5", "--json", "--seed", "1")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert len(data) == 5
    for entry in data:
        assert entry["stem"] == stem_for(
            entry["kind"], shipped.topics[entry["topic"]].title
        )  # names the topic
        assert len(entry["options"]) == 4 and 0 <= entry["answer"] < 4
        assert {"item_id", "text"} == set(entry["options"][0])
        key = shipped.items[entry["options"][entry["answer"]]["item_id"]]
        assert key.answer == ("O" if entry["kind"] == KIND_CORRECT else "X")
        assert entry["stem"].endswith(STEMS[entry["kind"]].removeprefix("다음 중 "))
        assert all(shipped.items[o["item_id"]].statement == o["text"] for o in entry["options"])
    assert not (isolated_home / "progress.db").exists()
    again = studyapp_cli("quiz", "--kind", "choice", "--dump", "5", "--json", "--seed", "1")
    assert again.stdout == result.stdout
    text = studyapp_cli("quiz", "--kind", "choice", "--dump", "5", "--seed", "1")  # the same, for people
    assert text.returncode == 0 and text.stdout.count("  *") == 5
    for entry in data:
        key = entry["options"][entry["answer"]]
        assert f"*{entry['answer'] + 1}) {key['text']}  [{key['item_id']}]" in text.stdout
    topic = studyapp_cli(
        "quiz", "--kind", "choice", "--dump", "3", "--json", "--topic", "bottleneck-analysis"
    )
    assert {e["options"][0]["item_id"][:2] for e in json.loads(topic.stdout)} == {"ba"}


def test_dump_and_kind_usage_errors_are_one_line_exit_2(studyapp_cli: InProcessCli) -> None:
    for args in (
        ["quiz", "--dump", "3"],  # not --kind choice
        ["quiz", "--kind", "choice", "--json"],  # --json without --dump
        ["quiz", "--kind", "choice", "--dump", "0"],
        ["quiz", "--kind", "choice", "--dump", "many"],
        ["quiz", "--kind", "essay"],
    ):
        result = studyapp_cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr, args


def test_plain_choice_session(isolated_home: Path, studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli(
        "quiz", "--plain", "--kind", "choice", "--mode", "new", "--count", "3", "--seed", "1",
        input_text="o\n1\n?\n2?\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # Three questions; the first is shown again after "o", which is not an option number.
    stems = re.findall(r"\]\n다음 중 (?:\S+ )*?(?:옳은|옳지 않은) 것은\?\n", out)  # the topic is named
    assert len(stems) == 4 and out.count("(1/3)") == 2 and "(3/3)" in out
    for number in "1234":
        assert f"\n  {number}) " in out  # options numbered 1-4
    assert "Answer with an option number 1-4" in out  # "o" is not an option
    assert out.count("[O]") + out.count("[X]") >= 12  # every option of every question explained
    assert out.count("✓") >= 3  # ✓ marks each question's answer (and ✗ only a wrong pick)
    assert "← answer" in out and "(don't know)" in out and "(unsure)" in out
    assert "Summary: " in out and "/3 right" in out
    store = ProgressStore.in_dir(isolated_home)
    reviews = store.reviews()
    assert {r.kind for r in reviews} == {"choice"}
    assert 1 + 2 <= len(reviews) <= 4 + 1 + 2


def test_default_quiz_is_mixed_in_due_mode(isolated_home: Path, studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli(
        "quiz", "--plain", "--seed", "2", "--count", "6", "--no-drills", input_text="o\no\n1\no\no\n1\n"
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "다음 중" in result.stdout  # the third O/X item came as a 4-choice question
    assert "[o/x" in result.stdout  # and the others as O/X
    kinds = {r.kind for r in ProgressStore.in_dir(isolated_home).reviews()}
    assert kinds == {"ox", "choice"}


def test_choice_path_imports_no_heavy_module_and_progress_reads_choice_reviews(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    import os
    import subprocess
    import sys

    code = """
import json, sys, tempfile
from pathlib import Path
from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions
content = load_content(locations.content_dir())
store = ProgressStore.in_dir(locations.data_dir())
session = QuizSession(content, store, SessionOptions(mode="new", kind="mixed", count=9, seed=1))
while not session.finished:
    question = session.current
    session.answer(question.answer)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy", "pytest", "textual"))))
"""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    progress = studyapp_cli("progress", "--json")
    assert progress.returncode == 0, progress.stderr
    data = json.loads(progress.stdout)
    reviews = ProgressStore.in_dir(isolated_home).reviews()
    assert data["reviews_total"] == len(reviews) > 9  # choice questions stored a review per option
    assert sum(topic["seen"] for topic in data["topics"].values()) == len({r.item_id for r in reviews})


def test_a_wrong_pick_puts_both_statements_in_the_notebook(shipped, store, clock) -> None:
    from studyapp.quiz.engine import select_questions

    # Seed 7: its one key makes a clean question (seed 6's, tp-002, is too short for one: O/X).
    session = QuizSession(shipped, store, SessionOptions(mode="new", kind="choice", count=1, seed=7))
    question = session.current
    assert question is not None and question.choice is not None
    wrong = (question.choice.answer_index + 1) % 4
    session.answer(str(wrong + 1))
    missed = select_questions(shipped, store, SessionOptions(mode="wrong"), clock.now)
    assert {q.id for q in missed} == {question.choice.key.id, question.choice.options[wrong].id}
    assert {q.kind for q in missed} == {KIND_OX}  # retried as the O/X statements themselves
    last = {r.item_id: r.answer for r in store.reviews()}
    assert last[question.choice.key.id] != question.choice.key.answer  # the implied, wrong O/X answer


# -- cue-free questions (issue 20) -------------------------------------------------------------


def test_stems_name_the_topic_the_options_come_from(shipped) -> None:
    questions = generate_choice_questions(
        shipped.items.values(), 12, random.Random(3), titles=topic_titles(shipped)
    )
    assert questions
    for question in questions:
        title = shipped.topics[question.topic].title
        assert (
            question.stem
            == f"다음 중 {title}에 대한 설명으로 {'옳은' if question.kind == KIND_CORRECT else '옳지 않은'} 것은?"
        )
        assert {item.topic for item in question.options} == {question.topic}
    assert stem_for(KIND_INCORRECT) == STEMS[KIND_INCORRECT]  # no title: the plain stem


def test_options_are_alike_in_length_and_never_mirror_each_other(shipped, index) -> None:
    for seed in range(4):
        for question in generate_choice_questions(shipped.items.values(), 40, random.Random(seed)):
            lengths = [len(item.statement.strip()) for item in question.options]
            assert lengths_alike(lengths), (question.id, lengths)
            assert max(lengths) <= LENGTH_BAND * min(lengths)
            for first, second in itertools.combinations(question.options, 2):
                assert index.mirror(first.id, second.id) is None, (first.id, second.id)


def test_key_position_and_stem_kinds_are_balanced_within_a_session(shipped) -> None:
    for seed in range(3):
        questions = generate_choice_questions(shipped.items.values(), 24, random.Random(seed))
        assert len(questions) == 24
        assert Counter(q.answer_index for q in questions) == {0: 6, 1: 6, 2: 6, 3: 6}  # a bag of positions
        kinds = Counter(q.kind for q in questions)
        assert kinds[KIND_CORRECT] == kinds[KIND_INCORRECT] == 12
        for prefix in range(1, len(questions) + 1):  # never more than one apart along the way
            seen = Counter(q.kind for q in questions[:prefix])
            assert abs(seen[KIND_CORRECT] - seen[KIND_INCORRECT]) <= 1


def test_the_key_is_the_longest_or_shortest_no_more_often_than_chance(shipped) -> None:
    cases = [
        choice_case(question)
        for seed in range(6)
        for question in generate_choice_questions(shipped.items.values(), 30, random.Random(seed))
    ]
    score = choice_cue_score(cases)
    assert score.questions == 180
    assert score.by_strategy["length"] <= 0.32  # "옳은 것은?" → longest, "옳지 않은 것은?" → shortest
    assert score.by_strategy["reverse length"] <= 0.32
    assert score.by_strategy["odd one out by length"] <= 0.32
    assert score.best <= 0.32, score.by_strategy


def test_a_key_too_long_for_its_topic_is_not_asked(shipped) -> None:
    """Fewer questions, not flawed ones: a statement padded far past every distractor."""
    topic = "bottleneck-analysis" if "bottleneck-analysis" in shipped.topics else next(iter(shipped.topics))
    items = {i.id: i for i in shipped.items.values() if i.topic == topic}
    long_key = next(i for i in sorted(items.values(), key=lambda i: i.id) if i.answer == "O")
    items[long_key.id] = replace(long_key, statement=long_key.statement + " 그리고" + long_key.statement * 3)
    builder = ChoiceBuilder(items.values())
    assert builder.question_for(items[long_key.id], random.Random(1)) is None
    for seed in range(10):
        for question in generate_choice_questions(items.values(), 20, random.Random(seed), builder=builder):
            assert long_key.id not in {item.id for item in question.options}


def test_a_mixed_session_keeps_the_stem_kinds_within_one(shipped, store) -> None:
    session = QuizSession(shipped, store, SessionOptions(mode="new", kind="mixed", count=40, seed=5))
    kinds = [q.choice.kind for q in session.queue if q.choice is not None]
    assert len(kinds) >= 8
    for prefix in range(1, len(kinds) + 1):
        seen = Counter(kinds[:prefix])
        assert abs(seen[KIND_CORRECT] - seen[KIND_INCORRECT]) <= 1


def test_retrying_session_misses_asks_each_key_with_other_options(shipped) -> None:
    questions = [
        as_question(q)
        for q in generate_choice_questions(
            shipped.items.values(), 8, random.Random(12), titles=topic_titles(shipped)
        )
    ]
    retried = retry_choice_questions(shipped, questions, random.Random(4))
    assert len(retried) == len(questions)
    redrawn = 0
    for old, new in zip(questions, retried, strict=True):
        assert old.choice is not None and new.choice is not None
        assert new.choice.key.id == old.choice.key.id and new.choice.stem == old.choice.stem
        assert new.choice.options != old.choice.options
        redrawn += set(new.choice.options) != set(old.choice.options)
    assert redrawn >= len(questions) // 2
    plain = next(iter(all_questions(shipped, include_drills=True).values()))
    assert retry_choice_questions(shipped, [plain], random.Random(1)) == [plain]  # O/X or drill: as it was


def test_a_retry_with_no_other_distractors_reorders_the_options(shipped) -> None:
    topic = next(iter(shipped.topics))
    o_items = sorted(
        (i for i in shipped.items.values() if i.topic == topic and i.answer == "O"), key=lambda i: i.id
    )
    x_items = sorted(
        (i for i in shipped.items.values() if i.topic == topic and i.answer == "X"), key=lambda i: i.id
    )
    original = build_choice_question(o_items[0], x_items[:3], random.Random(0), position=1)
    builder = ChoiceBuilder(original.options)  # only these four: nothing to redraw
    for seed in range(10):
        again = builder.fresh_question(original, random.Random(seed))
        assert set(again.options) == set(original.options) and again.key == original.key
        assert again.options != original.options and again.answer_index != original.answer_index


def test_each_topic_gets_both_stems_when_several_topics_share_a_session(shipped) -> None:
    """With one O/X toggle over topics taken in a fixed order, two (or six) topics each got one stem
    only: every "옳은 것은?" question on one topic, every "옳지 않은 것은?" on the other."""
    topics = sorted(shipped.topics)[:2]
    items = [item for item in shipped.items.values() if item.topic in topics]
    for seed in range(5):
        questions = generate_choice_questions(items, 20, random.Random(seed))
        kinds = {topic: Counter(q.kind for q in questions if q.key.topic == topic) for topic in topics}
        assert all(kinds[topic][KIND_CORRECT] and kinds[topic][KIND_INCORRECT] for topic in topics), kinds
    everything = generate_choice_questions(shipped.items.values(), 30, random.Random(7))
    per_topic = {topic: {q.kind for q in everything if q.key.topic == topic} for topic in shipped.topics}
    assert sum(len(kinds) == 2 for kinds in per_topic.values()) >= len(per_topic) - 1, per_topic


def test_a_seed_gives_the_same_questions_whatever_the_builder_met_before(shipped) -> None:
    """A key no distractor set can serve (here: its candidates are near-copies of one another,
    so no two may share a question) must not change the session's random stream the second time
    it is met: the builder is shared per process, and a memo filled by the search itself made
    the same seed give other questions after earlier sessions (the benchmark's learners)."""
    topic = next(iter(sorted(shipped.topics)))
    bank = {i.id: i for i in shipped.items.values() if i.topic == topic}
    template = next(i for i in sorted(bank.values(), key=lambda i: i.id) if i.answer == "O")
    key = replace(
        template,
        id="zz-key",
        topic="zz",
        statement="프로파일러는 연산자별 CPU 시간과 호출 횟수를 표로 보여 준다.",
    )
    copies = [
        replace(
            template,
            id=f"zz-x{n}",
            topic="zz",
            answer="X",
            statement=f"pytest-benchmark는 기본으로 라운드를 정확히 {n}00번 돈다.",
        )
        for n in range(1, 6)
    ]
    items = [*bank.values(), key, *copies]
    keys = [key, *sorted(bank.values(), key=lambda i: i.id)[:12]]

    def questions(builder: ChoiceBuilder) -> list[dict | None]:
        rng = random.Random(3)
        return [q.to_dict() if (q := builder.question_for(k, rng)) else None for k in keys]

    fresh = ChoiceBuilder(items)
    used = ChoiceBuilder(items)
    assert used.question_for(key, random.Random(99)) is None  # met once before, as in a long process
    first = questions(fresh)
    assert first[0] is None and any(first[1:])
    assert questions(used) == first
