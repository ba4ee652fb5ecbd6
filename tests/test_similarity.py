"""The near-duplicate detector, through `studyapp check --content DIR` as an author runs it."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.content.similarity import (
    ERROR_SCORE,
    MIRROR_ANTONYM,
    MIRROR_NEGATION,
    MIRROR_NUMBER,
    MIRROR_WORDING,
    WARNING_SCORE,
    SimilarityIndex,
    duplicate_problems,
    mirror_change,
    normalise,
    numbers_in,
)
from tests.conftest import REPO, InProcessCli

PARAPHRASE_A = "가상 메모리 압축 계수를 높이면 페이지 교체 빈도가 크게 줄어든다."
PARAPHRASE_B = "가상 메모리 압축 계수를 높이면 페이지 교체 빈도가 줄어드는 데 도움이 된다."


@pytest.fixture(scope="module")
def shipped():
    return load_content(REPO / "content")


def content_copy(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(REPO / "content", root)
    return root


def plant(root: Path, topic: str, items: list[dict[str, str]]) -> tuple[Path, dict[str, int]]:
    """Write an extra items file for `topic`; returns it and each planted item's line."""
    lines = [f"topic: {topic}", "items:"]
    where: dict[str, int] = {}
    for item in items:
        where[item["id"]] = len(lines) + 1
        lines.append(f"  - id: {item['id']}")
        for key in ("statement", "answer", "explanation", "section", "siblings", "misconception"):
            if key in item:
                value = item[key]
                lines.append(f"    {key}: {value if key == 'siblings' else repr(value)}")
    path = root / "items" / "zz-planted.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, where


def o_item(item_id: str, statement: str, section: str, **extra: str) -> dict[str, str]:
    return {
        "id": item_id,
        "statement": statement,
        "answer": "O",
        "explanation": "심어 둔 문항이다.",
        "section": section,
        **extra,
    }


def test_normalise_drops_punctuation_spaces_case_and_particles() -> None:
    assert normalise("프로파일러는  GPU를, 측정한다!") == normalise("프로파일러가 gpu 측정한다")
    assert normalise("ＧＰＵ") == "gpu"  # NFKC: full-width letters
    assert normalise("나이") == "나이"  # a two-letter word keeps its last syllable
    assert numbers_in("5 ms, 20 ms, 5 ms") == frozenset({"5", "20"})


def test_scores_rank_copies_above_paraphrases_and_skip_other_numbers(shipped) -> None:
    base = next(iter(shipped.items.values()))
    copy = replace(base, id="zz-copy", statement=base.statement.replace(" ", "  ") + "!")
    para_a = replace(base, id="zz-a", statement=PARAPHRASE_A)
    para_b = replace(base, id="zz-b", statement=PARAPHRASE_B)
    other_numbers = replace(base, id="zz-n", statement=PARAPHRASE_A.replace("크게", "10 % 이상"))
    same_numbers = replace(base, id="zz-m", statement=PARAPHRASE_A.replace("크게", "10 % 이상 크게"))
    index = SimilarityIndex([*shipped.items.values(), copy, para_a, para_b, other_numbers, same_numbers])
    assert index.score(base.id, "zz-copy") >= ERROR_SCORE
    assert WARNING_SCORE <= index.score("zz-a", "zz-b") < ERROR_SCORE
    assert index.score("zz-a", "zz-b") == index.score("zz-b", "zz-a")
    # Only one of the two mentions a number: still compared. Both, with different ones: never.
    assert index.score("zz-a", "zz-n") > WARNING_SCORE
    assert index.score("zz-n", "zz-m") > WARNING_SCORE
    other = replace(other_numbers, id="zz-o", statement=other_numbers.statement.replace("10", "20"))
    assert SimilarityIndex([other_numbers, other, para_a]).score("zz-n", "zz-o") == 0.0


def test_shipped_bank_has_no_near_verbatim_copy(shipped) -> None:
    errors = [p for p in duplicate_problems(shipped) if not p.warning]
    assert errors == []


def test_planted_copy_fails_check_naming_both_ids_and_lines(
    tmp_path: Path, shipped, studyapp_cli: InProcessCli
) -> None:
    root = content_copy(tmp_path)
    original = shipped.items["pa-001"] if "pa-001" in shipped.items else next(iter(shipped.items.values()))
    statement = original.statement.replace(" ", "  ").rstrip(".") + "!"  # spacing and punctuation only
    copy_id = f"{shipped.topics[original.topic].id_prefix or ''}zz-copy-001"  # the topic's own prefix
    copy = o_item(copy_id, statement, original.section) | {"answer": original.answer}
    if original.misconception:  # an X item needs its tag
        copy["misconception"] = original.misconception
    planted, lines = plant(root, original.topic, [copy])
    result = studyapp_cli("check", "--content", str(root))
    assert result.returncode == 2, result.stdout + result.stderr
    copy_of_original = root / original.location.path.relative_to(REPO / "content")
    report = [line for line in result.stderr.splitlines() if copy_id in line]
    assert len(report) == 1, result.stderr
    line = report[0]
    assert "near-duplicate" in line and "warning" not in line
    assert f"'{original.id}' ({copy_of_original}:{original.location.line})" in line
    assert f"'{copy_id}' ({planted}:{lines[copy_id]})" in line
    assert line.startswith(f"{planted}:{lines[copy_id]}:")


def test_planted_paraphrase_is_a_warning_and_siblings_are_never_reported(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    root = content_copy(tmp_path)
    planted, lines = plant(
        root,
        "performance-analysis",
        [
            o_item("pa-zz-para-001", PARAPHRASE_A, "definition"),
            o_item("pa-zz-para-002", PARAPHRASE_B, "definition"),
            o_item("pa-zz-twin-001", "압축된 스왑 영역은 디스크 입출력 대기 시간을 숨겨 준다.", "features"),
            o_item(
                "pa-zz-twin-002",
                "압축된 스왑 영역은 디스크 입출력 대기 시간을 숨겨 준다!",
                "features",
                siblings="[pa-zz-twin-001]",
            ),
        ],
    )
    result = studyapp_cli("check", "--content", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    warnings = [line for line in result.stdout.splitlines() if "zz-para-00" in line]
    assert len(warnings) == 1, result.stdout
    assert f"{planted}:{lines['pa-zz-para-002']}: warning: near-duplicate statements" in warnings[0]
    assert f"'pa-zz-para-001' ({planted}:{lines['pa-zz-para-001']})" in warnings[0]
    assert f"'pa-zz-para-002' ({planted}:{lines['pa-zz-para-002']})" in warnings[0]
    assert "zz-twin" not in result.stdout + result.stderr  # identical, but declared mirror siblings


def test_check_on_shipped_content_passes(studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("check")
    assert result.returncode == 0, result.stderr
    assert "near-duplicate" not in result.stderr  # errors go to stderr; the bank has none


def test_mirror_change_names_what_differs() -> None:
    base = "데모 프로파일러는 GPU 커널 시간을 측정한다."
    assert mirror_change(base, "데모 프로파일러는 GPU 커널 시간을 측정하지 않는다.") == MIRROR_NEGATION
    assert (
        mirror_change("배치 크기를 키우면 처리량이 증가한다.", "배치 크기를 키우면 처리량이 감소한다.")
        == MIRROR_ANTONYM
    )
    assert mirror_change("스텝 2~4가 기록된다.", "스텝 2~3이 기록된다.") == MIRROR_NUMBER
    assert mirror_change(base, "데모 프로파일러는 CPU 커널 시간을 측정한다.") == MIRROR_ANTONYM  # cpu/gpu
    assert mirror_change(base, "데모 프로파일러는 GPU 메모리 사용량을 측정한다.") == MIRROR_WORDING
    # A paraphrase in other words, and a different statement, are not mirrors.
    assert (
        mirror_change(
            "asyncio는 한 스레드에서 코루틴을 번갈아 실행한다.", "asyncio는 여러 코어에서 병렬로 돈다."
        )
        is None
    )
    assert mirror_change(base, "학습 곡선이 평탄해지면 데이터를 더 모아도 소용이 없다.") is None


def test_mirrors_never_share_a_choice_question_and_siblings_exempt_them(shipped) -> None:
    base = next(i for i in sorted(shipped.items.values(), key=lambda i: i.id) if i.answer == "O")
    negated = replace(base, id="zz-neg", answer="X", statement=base.statement.rstrip(".") + "지 않는다.")
    index = SimilarityIndex([*shipped.items.values(), negated])
    assert index.mirror(base.id, "zz-neg") is not None and index.too_close(base.id, "zz-neg")
    assert [(p.first.id, p.second.id) for p in index.mirrors() if "zz-neg" in (p.first.id, p.second.id)]
    marked = replace(negated, siblings=(base.id,))
    index = SimilarityIndex([*shipped.items.values(), marked])
    assert index.mirror(base.id, "zz-neg") is None and index.too_close(base.id, "zz-neg")  # siblings: apart


def test_planted_antonym_mirror_is_one_warning_naming_both_lines(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """Lexically close too (0.76): reported once, as the mirror it is."""
    root = content_copy(tmp_path)
    statement = "스왑 영역을 압축하면 페이지 교체가 늘어난다."
    mirror = dict(o_item("pa-mirror-902", "스왑 영역을 압축하면 페이지 교체가 줄어든다.", "features"))
    mirror |= {"answer": "X", "misconception": "accuracy-vs-performance"}
    planted, lines = plant(
        root, "performance-analysis", [o_item("pa-mirror-901", statement, "features"), mirror]
    )
    result = studyapp_cli("check", "--content", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    found = [line for line in result.stdout.splitlines() if "pa-mirror-90" in line and "' (" in line]
    assert len(found) == 1, result.stdout
    assert found[0].startswith(
        f"{planted}:{lines['pa-mirror-902']}: warning: mirror pair without `siblings:`"
    )
    assert "with an opposite" in found[0]
    assert f"'pa-mirror-901' ({planted}:{lines['pa-mirror-901']})" in found[0]
    assert f"'pa-mirror-902' ({planted}:{lines['pa-mirror-902']})" in found[0]
