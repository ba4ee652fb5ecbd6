"""The one pass rule: the pass mark over the whole exam, or 과락 in a topic (per-topic cutoff)."""

from __future__ import annotations

from studyapp.quiz.pass_rule import RULE_PASS_MARK, RULE_TOPIC_CUTOFF, verdict


def test_the_pass_mark_is_inclusive() -> None:
    assert verdict(3, 5, {"a": (3, 5)}, 0.6).passed  # exactly 60 %
    missed = verdict(2, 5, {"a": (2, 5)}, 0.6)
    assert not missed.passed and missed.rule == RULE_PASS_MARK and missed.share == 0.4


def test_a_topic_under_the_cutoff_fails_a_high_total_and_is_named() -> None:
    per_topic = {"bottleneck": (9, 10), "profiling": (2, 5), "testing": (1, 5)}
    result = verdict(12, 20, per_topic, 0.6, topic_cutoff=0.4)
    assert not result.passed and result.rule == RULE_TOPIC_CUTOFF
    assert (result.topic, result.topic_share, result.cutoff) == ("testing", 0.2, 0.4)  # the weakest
    # at the cutoff exactly is not 과락: the pass mark decides
    fine = verdict(12, 20, {"bottleneck": (10, 15), "testing": (2, 5)}, 0.6, topic_cutoff=0.4)
    assert fine.passed and fine.rule == RULE_PASS_MARK


def test_without_a_cutoff_only_the_pass_mark_counts() -> None:
    result = verdict(6, 10, {"a": (6, 6), "b": (0, 4)}, 0.6)
    assert result.passed and result.rule == RULE_PASS_MARK and result.topic is None


def test_an_empty_exam_does_not_pass() -> None:
    assert not verdict(0, 0, {}, 0.6, topic_cutoff=0.4).passed


def test_the_plain_result_says_the_topic_cutoff_decided(tmp_path, studyapp_cli) -> None:
    """`studyapp quiz --mode exam --plain` with a 과락 share set (F8): a total above the pass mark
    fails on the weakest topic, and the result says so in one line."""
    from studyapp import locations
    from studyapp.content.loader import load_content
    from studyapp.progress import exams, goals
    from studyapp.progress.store import ProgressStore
    from studyapp.quiz.exam import ExamSession, ExamSettings
    from studyapp.quiz.presenting import topic_path
    from studyapp.quiz.questions import KIND_OX

    content = load_content(locations.content_dir())
    settings = ExamSettings(count=10, kind=KIND_OX, seed=21)
    store = ProgressStore.in_dir(tmp_path)
    goals.set_topic_cutoff(store, 0.4)
    preview = ExamSession(content, ProgressStore(tmp_path / "preview.db"), settings).questions
    weak = preview[0].topic  # every question of this topic answered wrong, the rest right
    missed = sum(q.topic == weak for q in preview)
    assert 1 <= missed <= 4 and len({q.topic for q in preview}) > 1  # 60 % or more overall
    answers = "".join(
        ("X" if q.answer == "O" else "O") + "\n" if q.topic == weak else q.answer + "\n" for q in preview
    )
    store.close()
    done = studyapp_cli(
        "--lang", "en", "quiz", "--mode", "exam", "--plain", "--kind", "ox", "--count", "10",
        "--seed", "21", input_text=answers + "s\n", env={"STUDYAPP_HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"Result: {10 - missed}/10" in done.stdout and "FAIL" in done.stdout
    assert f"Topic cutoff failed: {topic_path(content, weak)} 0% < 40%" in done.stdout
    (attempt,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert attempt.passed is False and attempt.settings["topic_cutoff"] == 0.4
