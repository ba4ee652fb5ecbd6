"""Glossary relations (issue 32): `broader:`, `narrower:` and `not_with:` between terms. A genus
fits its species' definition (인수 테스트 for 알파 테스트's), so a question must never offer a
broader or narrower kind of its key, nor a `not_with` pair; `studyapp check` refuses a relation to
an unknown id, a cycle, and a `confused_with` that names a related term. Also: an option never
prints the English name twice (tui review c8: `자기 시간(tottime) (tottime (self time))`)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from studyapp.content.glossary import askable_terms, related_terms
from studyapp.content.loader import check_content, load_content
from studyapp.content.model import Term
from studyapp.quiz.glossary import build_glossary_question, generate_glossary_questions
from tests.conftest import REPO
from tests.helpers_content import GLOSSARY, line_of, write_content, write_glossary

REAL_CONTENT = REPO / "content"

# The pairs the content reviews of 2026-12 found side by side in one question, each a second
# right answer: (key, distractor that also fit its definition).
REVIEWED_PAIRS = [
    ("alpha-test", "acceptance-test"),
    ("beta-test", "acceptance-test"),
    ("loocv", "k-fold-cv"),
    ("k-fold-cv", "stratified-kfold"),
    ("deterministic-profiler", "cprofile"),
    ("kernel-level-thread", "process"),
    ("user-level-thread", "coroutine"),
    ("thread", "user-level-thread"),
    ("synchronous-call", "blocking-call"),
    ("blocking-call", "synchronous-call"),
    ("balanced-accuracy", "macro-average"),
    ("test-oracle", "consistency-oracle"),
    ("software-testing", "regression-test"),
    ("gil", "lock"),
]


@pytest.fixture(scope="module")
def real_glossary() -> dict[str, Term]:
    content, problems = check_content(REAL_CONTENT)
    assert not [p for p in problems if not p.warning], problems
    return content.glossary


def problems_of(tmp_path: Path, text: str) -> list[str]:
    root = write_glossary(write_content(tmp_path / "content"), text)
    _, problems = check_content(root)
    return [p.format(root) for p in problems if not p.warning]


def test_the_reviewed_pairs_are_related_both_ways(real_glossary: dict[str, Term]) -> None:
    related = related_terms(real_glossary)
    for key, other in REVIEWED_PAIRS:
        assert other in related[key] and key in related[other], (key, other)
    # along chains: 소프트웨어 테스트 ⊃ 인수 테스트 ⊃ 알파 테스트
    assert "software-testing" in related["alpha-test"]
    # siblings stay fair distractors: 알파 / 베타 is the pair an examiner sets side by side
    assert "beta-test" not in related["alpha-test"]


@pytest.mark.parametrize("confused", ["as written", "none"])
def test_the_generator_never_offers_a_related_term(real_glossary: dict[str, Term], confused: str) -> None:
    """Every askable term of the real glossary as the key, 40 seeds each, and 40 whole-glossary
    draws: no option is a broader or narrower kind of the key, or its not_with pair. Without any
    `confused_with` every distractor comes from the key's topic, where the related terms are."""
    glossary = real_glossary
    if confused == "none":
        glossary = {
            term_id: dataclasses.replace(term, confused_with=()) for term_id, term in glossary.items()
        }
    related = related_terms(glossary)
    assert sum(1 for barred in related.values() if barred) >= 20  # the relations are there to test
    keys = askable_terms(glossary)
    assert len(keys) == len(glossary)  # no term lost its question to a relation
    offered: set[tuple[str, str]] = set()
    for seed in range(40):
        rng = random.Random(seed)
        for key in keys:
            question = build_glossary_question(key, glossary, rng)
            assert question is not None, key.id
            shown = {term.id for term in question.options} - {key.id}
            assert len(shown) == 3 and not shown & related[key.id], (seed, key.id, shown & related[key.id])
            offered |= {(key.id, other) for other in shown}
        for question in generate_glossary_questions(glossary, len(keys), random.Random(seed)):
            shown = {term.id for term in question.options} - {question.key.id}
            assert not shown & related[question.key.id], (seed, question.key.id)
    if confused == "none":  # siblings are still drawn: only the related terms are kept out
        assert ("alpha-test", "beta-test") in offered and ("loocv", "stratified-kfold") in offered


def test_the_dumped_questions_never_offer_a_related_term(studyapp_cli, isolated_home: Path) -> None:  # type: ignore[no-untyped-def]
    """The same through `studyapp quiz --kind glossary --dump --json`, as a learner sees them."""
    related = related_terms(load_content(REAL_CONTENT).glossary)
    seen_keys: set[str] = set()
    for seed in range(1, 6):
        args = ("--content", str(REAL_CONTENT), "quiz", "--kind", "glossary", "--dump", "200", "--json")
        result = studyapp_cli(*args, "--seed", str(seed))
        assert result.returncode == 0, result.stderr
        for entry in json.loads(result.stdout):
            ids = [option["term_id"] for option in entry["options"]]
            key = ids[entry["answer"]]
            seen_keys.add(key)
            assert not set(ids) & related[key], (seed, key, ids)
    assert {key for key, _ in REVIEWED_PAIRS} <= seen_keys


def _with_relation(field: str, line: str, term_id: str = "test-oracle") -> str:
    """GLOSSARY with `line` added to `term_id`'s entry, right after its definition."""
    anchor = f"  - id: {term_id}\n"
    head, tail = GLOSSARY.split(anchor)
    definition_end = tail.index("\n", tail.index("definition:")) + 1
    return head + anchor + tail[:definition_end] + f"    {field}: {line}\n" + tail[definition_end:]


def test_check_refuses_unknown_and_self_relations(tmp_path: Path) -> None:
    text = _with_relation("narrower", "[no-such-term, true-oracle]")
    line = line_of(text, "narrower: [no-such-term")
    assert problems_of(tmp_path / "unknown", text) == [
        f"glossary.yaml:{line}: glossary term 'test-oracle': narrower names an unknown term 'no-such-term'",
        f"glossary.yaml:{line}: glossary term 'test-oracle': narrower names an unknown term 'true-oracle'",
    ]
    text = _with_relation("not_with", "[test-oracle]")
    assert (
        f"glossary.yaml:{line_of(text, 'not_with:')}: glossary term 'test-oracle': not_with names the term itself "
        "(a term is not related to itself)"
    ) in problems_of(tmp_path / "self", text)


def test_check_refuses_a_distractor_that_is_a_kind_of_the_answer(tmp_path: Path) -> None:
    """A planted bad relation: 테스트 하네스 is declared a broader kind of 테스트 오라클, whose
    confused_with names it; and 동치 분할 / 경계값 분석 declared not_with while confused."""
    text = _with_relation("broader", "[test-harness]")
    text = text.replace(
        "    confused_with: [boundary-value-analysis]\n",
        "    confused_with: [boundary-value-analysis]\n    not_with: [boundary-value-analysis]\n",
        1,
    )
    found = problems_of(tmp_path, text)
    oracle = text.index("  - id: test-oracle")
    oracle_links = line_of(text[oracle:], "confused_with:") + text[:oracle].count("\n")
    assert (
        f"glossary.yaml:{oracle_links}: glossary term 'test-oracle': confused_with names 'test-harness', a broader "
        "kind of it: as a distractor it would be a second right answer"
    ) in found
    harness = line_of(text, "confused_with: [test-driver, test-oracle]")
    assert (
        f"glossary.yaml:{harness}: glossary term 'test-harness': confused_with names 'test-oracle', a narrower "
        "kind of it: as a distractor it would be a second right answer"
    ) in found
    assert any(
        "'equivalence-partitioning': confused_with names 'boundary-value-analysis', a not_with pair" in p
        for p in found
    )
    assert any(
        "'boundary-value-analysis': confused_with names 'equivalence-partitioning', a not_with pair" in p
        for p in found
    )


def test_check_refuses_a_cycle(tmp_path: Path) -> None:
    """테스트 오라클 narrower 테스트 하네스, and 하네스 narrower 오라클: each a kind of itself."""
    text = _with_relation("narrower", "[test-harness]").replace(
        "    definition: 테스트 대상을 실행하고",
        "    narrower: [test-oracle]\n    definition: 테스트 대상을 실행하고",
    )
    found = problems_of(tmp_path, text)
    for term_id in ("test-oracle", "test-harness"):
        line = line_of(text[text.index(f"id: {term_id}") :], "narrower:") + text[
            : text.index(f"id: {term_id}")
        ].count("\n")
        assert (
            f"glossary.yaml:{line}: glossary term '{term_id}': its broader/narrower relations form a cycle "
            "(it is a kind of itself)"
        ) in found, found


def test_a_relation_that_leaves_too_few_distractors_is_reported(tmp_path: Path) -> None:
    """7 demo terms: barring five of them from test-stub's question leaves it one distractor."""
    text = _with_relation(
        "narrower",
        "[test-driver, test-harness, test-oracle, mock-object, equivalence-partitioning]",
        "test-stub",
    )
    found = problems_of(tmp_path, text)
    assert any(
        p.startswith(
            f"glossary.yaml:{line_of(text, 'id: test-stub')}: glossary term 'test-stub': only 1 other term(s)"
        )
        for p in found
    ), found
    content = load_content(write_glossary(write_content(tmp_path / "ok"), GLOSSARY))
    assert "test-stub" in {t.id for t in askable_terms(content.glossary)}


# -- the option label (tui review c8) -----------------------------------------------------------------


def test_no_option_prints_the_english_name_twice(real_glossary: dict[str, Term]) -> None:
    for term in real_glossary.values():
        label = term.label
        assert (
            label.count(term.term_en) <= 1
            and "((" not in label
            and ") (" not in label.replace(f"{term.term} ({term.term_en})", "")
        ), label
        assert label.count("(") - label.count(")") == 0
        english_words = {word.casefold() for word in term.term_en.replace("(", " ").replace(")", " ").split()}
        korean_aside = term.term[term.term.find("(") :] if "(" in term.term else ""
        assert not any(word in korean_aside.casefold() for word in english_words if len(word) > 2), label
    assert real_glossary["tottime"].label == "자기 시간 (tottime)"


def test_check_refuses_a_name_that_repeats_its_english(tmp_path: Path) -> None:
    text = GLOSSARY.replace(
        "term: 테스트 스텁\n    term_en: test stub", "term: 테스트 스텁(stub)\n    term_en: test stub"
    ).replace(
        "term: 목 객체\n    term_en: mock object", "term: 목 객체(모의 객체)\n    term_en: mock (fake) object"
    )
    found = problems_of(tmp_path, text)
    assert (
        f"glossary.yaml:{line_of(text, '테스트 스텁(stub)')}: glossary term 'test-stub': the option prints "
        "'테스트 스텁(stub) (test stub)', the English word 'stub' twice: write the Korean name without the parenthetical"
    ) in found
    assert any(
        "'mock-object': the option prints '목 객체(모의 객체) (mock (fake) object)', parentheses inside" in p
        for p in found
    )
    # a Korean name that holds the whole English one prints once, and is fine
    same = GLOSSARY.replace(
        "term: 테스트 오라클\n    term_en: test oracle", "term: test_oracle()\n    term_en: test_oracle"
    )
    assert problems_of(tmp_path / "same", same) == []
    assert (
        load_content(write_glossary(write_content(tmp_path / "l"), same)).glossary["test-oracle"].label
        == "test_oracle()"
    )
