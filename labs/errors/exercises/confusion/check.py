"""Checker of the confusion exercise (docs/EXERCISES.md).

Each of the learner's four functions runs in its own child process (`probe()` below is the driver
there) on the same planted cases: a clean case, two random planted ones (a confused pair, a class
that is never predicted, a label absent from the data) and a perfect prediction. The reference is
the lab's `labs/errors/confusion.py` and `imbalance.macro_f1`. No timing is involved.
"""

from __future__ import annotations

import random
import secrets
import sys
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import (
    Checker,
    LearnerResult,
    call_on_cases,
    is_close,
    parse_args,
    run_learner,
    say,
    short_repr,
)

LEARNER_FILE = "confusion.py"
NAMES = ["cat", "dog", "bird", "fish", "frog", "owl", "fox", "bee", "eel", "yak"]
METRICS = ("precision", "recall", "f1", "support")


# -- planted data --------------------------------------------------------------------------------------


def planted_case(rng: random.Random, name: str, quick: bool) -> dict[str, Any]:
    """k classes with unequal shares; `confused` is predicted as `into` 35 % of the time, `never`
    is never predicted (its samples go elsewhere), `ghost` is a label no sample has."""
    k = rng.randint(4, 6)
    labels = rng.sample(NAMES, k + 1)
    ghost = labels[-1]
    present = labels[:-1]
    confused, into, never = present[0], present[1], present[2]
    rng.shuffle(labels)  # the order of `labels` is not the order of the story
    y_true: list[str] = []
    y_pred: list[str] = []
    n = 150 if quick else 400
    weights = [4.0 if c == confused else (0.5 if c == never else rng.uniform(1.0, 2.5)) for c in present]
    predictable = [c for c in present if c != never]
    for _ in range(n):
        true = rng.choices(present, weights)[0]
        if true == never:
            predicted = rng.choice(predictable)
        elif true == confused and rng.random() < 0.35:
            predicted = into
        elif rng.random() < 0.1:
            predicted = rng.choice([c for c in predictable if c != true])
        else:
            predicted = true
        y_true.append(true)
        y_pred.append(predicted)
    return {
        "name": name,
        "y_true": y_true,
        "y_pred": y_pred,
        "labels": labels,
        "never": never,
        "ghost": ghost,
    }


def planted_cases(quick: bool, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    clean_true = ["cat"] * 6 + ["dog"] * 4 + ["owl"] * 5
    clean_pred = ["cat"] * 5 + ["dog"] + ["dog"] * 3 + ["owl"] + ["owl"] * 4 + ["cat"]
    perfect = planted_case(rng, say("a perfect prediction", "완벽한 예측"), quick)
    perfect["y_pred"] = list(perfect["y_true"])
    perfect["never"] = None
    return [
        {
            "name": say("15 samples, every class predicted", "표본 15개, 모든 클래스가 예측됨"),
            "y_true": clean_true,
            "y_pred": clean_pred,
            "labels": ["cat", "dog", "owl"],
            "never": None,
            "ghost": None,
        },
        planted_case(rng, say("planted data set 1", "심어 둔 데이터 세트 1"), quick),
        planted_case(rng, say("planted data set 2", "심어 둔 데이터 세트 2"), quick),
        perfect,
    ]


# -- in the learner's child process ------------------------------------------------------------------


def probe(function_name: str, cases: list[dict[str, Any]]) -> list[Any]:
    """The learner's function on every case; an error names the case it happened on."""
    return call_on_cases(LEARNER_FILE, function_name, cases, ("y_true", "y_pred", "labels"))


# -- the reference -----------------------------------------------------------------------------------


def reference(case: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    from labs.errors.confusion import confusion_matrix, per_class_metrics
    from labs.errors.imbalance import accuracy, macro_f1

    labels = case["labels"]
    index = {label: i for i, label in enumerate(labels)}
    matrix = confusion_matrix(
        np.array([index[t] for t in case["y_true"]]),
        np.array([index[p] for p in case["y_pred"]]),
        len(labels),
    )
    off_diagonal = matrix.copy()
    np.fill_diagonal(off_diagonal, 0)
    return {
        "matrix": matrix.tolist(),
        "per_class": per_class_metrics(matrix, labels),
        "macro_f1": macro_f1(matrix),
        "accuracy": accuracy(matrix),
        "largest_error": int(off_diagonal.max()),
    }


# -- the requirements --------------------------------------------------------------------------------


def check_matrix(
    check: Checker, cases: list[dict[str, Any]], got: list[Any], refs: list[dict[str, Any]]
) -> None:
    name = "confusion_matrix: rows = true class, columns = predicted"
    for case, mine, ref in zip(cases, got, refs, strict=True):
        if _as_matrix(mine) != ref["matrix"]:
            transposed = [list(row) for row in zip(*ref["matrix"], strict=True)]
            why = (
                say(
                    "it is the transpose of the right one: rows must be the TRUE class",
                    "올바른 행렬의 전치(transpose)입니다: 행이 실제(TRUE) 클래스여야 합니다",
                )
                if _as_matrix(mine) == transposed
                else say(
                    f"expected {ref['matrix']}, got {short_repr(mine)}",
                    f"기대한 값은 {ref['matrix']}인데 받은 값은 {short_repr(mine)}입니다",
                )
            )
            check.requirement(name, False, f"{case['name']} (labels {case['labels']}): {why}")
            return
    most = max(len(c["labels"]) for c in cases)
    check.requirement(
        name,
        True,
        say(f"{len(cases)} cases, up to {most} classes", f"사례 {len(cases)}개, 클래스 최대 {most}개"),
    )


def _as_matrix(value: Any) -> Any:
    if isinstance(value, (list, tuple)) and all(isinstance(row, (list, tuple)) for row in value):
        return [list(row) for row in value]
    return value


def check_metrics(
    check: Checker, cases: list[dict[str, Any]], got: list[Any], refs: list[dict[str, Any]]
) -> None:
    name = "per_class_metrics: precision, recall, F1, support"
    for case, mine, ref in zip(cases, got, refs, strict=True):
        if not isinstance(mine, dict) or set(mine) != set(case["labels"]):
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: expected a dict keyed by every label in labels, got {short_repr(mine)}",
                    f"{case['name']}: labels의 모든 label을 키로 하는 dict여야 하는데 받은 값은 "
                    f"{short_repr(mine)}입니다",
                ),
            )
            return
        for label in case["labels"]:
            row, expected = mine[label], ref["per_class"][label]
            if not isinstance(row, dict) or any(key not in row for key in METRICS):
                check.requirement(
                    name,
                    False,
                    say(
                        f"{case['name']}: {label!r} needs {', '.join(METRICS)}; got {short_repr(row)}",
                        f"{case['name']}: {label!r}에는 {', '.join(METRICS)}가 있어야 합니다; 받은 값은 "
                        f"{short_repr(row)}입니다",
                    ),
                )
                return
            wrong = [key for key in METRICS if not is_close(row[key], expected[key])]
            if wrong:
                swapped = is_close(row["precision"], expected["recall"]) and is_close(
                    row["recall"], expected["precision"]
                )
                hint = (
                    say(
                        ": precision and recall are swapped — precision divides by the COLUMN sum (predicted as c), recall by the row sum",
                        ": precision과 recall이 뒤바뀌었습니다 — precision은 열(COLUMN)의 합(c로 예측된 수)으로, "
                        "recall은 행의 합으로 나눕니다",
                    )
                    if swapped
                    else ""
                )
                shown = ", ".join(
                    say(
                        f"{key} {row[key]!r} (expected {expected[key]:.4g})",
                        f"{key} {row[key]!r} (기대값 {expected[key]:.4g})",
                    )
                    for key in wrong
                )
                check.requirement(
                    name,
                    False,
                    say(
                        f"{case['name']}, class {label!r}: {shown}{hint}",
                        f"{case['name']}, 클래스 {label!r}: {shown}{hint}",
                    ),
                )
                return
    check.requirement(
        name,
        True,
        say(
            f"every class of {len(cases)} cases matches labs/errors/confusion.py",
            f"사례 {len(cases)}개의 모든 클래스가 labs/errors/confusion.py와 맞습니다",
        ),
    )


def check_never_predicted(
    check: Checker, cases: list[dict[str, Any]], got: list[Any] | None, error: str | None
) -> None:
    name = "a class never predicted (or absent) has precision 0, no crash"
    planted = [c for c in cases if c["never"] is not None]
    if got is None:
        check.requirement(
            name,
            False,
            say(
                f"per_class_metrics() did not finish: {error}",
                f"per_class_metrics()가 끝나지 않았습니다: {error}",
            ),
        )
        return
    for case, mine in zip(cases, got, strict=True):
        if case["never"] is None or not isinstance(mine, dict):
            continue
        for label, what, what_ko in (
            (case["never"], "never predicted", "한 번도 예측되지 않는 클래스"),
            (case["ghost"], "in no sample", "어느 표본에도 없는 label"),
        ):
            row = mine.get(label)
            if (
                not isinstance(row, dict)
                or not is_close(row.get("precision"), 0.0)
                or not is_close(row.get("f1"), 0.0)
            ):
                check.requirement(
                    name,
                    False,
                    say(
                        f"{case['name']}: {label!r} is {what}; expected precision 0 and F1 0, got {short_repr(row)}",
                        f"{case['name']}: {label!r}은(는) {what_ko}입니다; precision 0, F1 0이어야 하는데 "
                        f"받은 값은 {short_repr(row)}입니다",
                    ),
                )
                return
    check.requirement(
        name,
        True,
        say(
            f"{len(planted)} planted never-predicted classes and {len(planted)} labels no sample has: precision 0, F1 0",
            f"심어 둔, 한 번도 예측되지 않는 클래스 {len(planted)}개와 어느 표본에도 없는 label "
            f"{len(planted)}개: precision 0, F1 0",
        ),
    )


def macro_slip(mine: Any, ref: dict[str, Any]) -> str:
    """What a wrong macro F1 equals, where it equals a known other average (review row 25: say the
    slip, not only the numbers); '' when it is none of them."""
    rows = list(ref["per_class"].values())
    if not rows:
        return ""
    mean_p = sum(row["precision"] for row in rows) / len(rows)
    mean_r = sum(row["recall"] for row in rows) / len(rows)
    present = [row["f1"] for row in rows if row["support"] > 0]
    total = sum(row["support"] for row in rows)
    others = [
        (ref["accuracy"], say("that is the accuracy (micro F1)", "이것은 accuracy (micro F1)입니다")),
        (
            2 * mean_p * mean_r / (mean_p + mean_r) if mean_p + mean_r else 0.0,
            say(
                "that is the F1 of the mean precision and the mean recall",
                "이것은 precision의 평균과 recall의 평균으로 구한 F1입니다",
            ),
        ),
        (
            sum(present) / len(present) if present else 0.0,
            say(
                "that leaves out the classes absent from y_true (their F1 is 0 and counts)",
                "y_true에 없는 클래스를 뺐습니다 (그 클래스의 F1은 0이고, 평균에 들어갑니다)",
            ),
        ),
        (
            sum(row["f1"] * row["support"] for row in rows) / total if total else 0.0,
            say(
                "that is weighted by support (weighted F1); macro weighs every class the same",
                "이것은 support로 가중한 평균(weighted F1)입니다; macro는 모든 클래스에 같은 가중치를 줍니다",
            ),
        ),
    ]
    for value, slip in others:
        if not is_close(value, ref["macro_f1"]) and is_close(mine, value):
            return say(
                f": {slip}: average the per-class F1 scores instead",
                f": {slip}: 대신 클래스별 F1을 평균하세요",
            )
    return ""


def check_macro(
    check: Checker, cases: list[dict[str, Any]], got: list[Any], refs: list[dict[str, Any]]
) -> None:
    name = "macro_f1: the mean of the per-class F1"
    for case, mine, ref in zip(cases, got, refs, strict=True):
        if not is_close(mine, ref["macro_f1"]):
            hint = macro_slip(mine, ref)
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: {short_repr(mine)}, expected {ref['macro_f1']:.6g}{hint}",
                    f"{case['name']}: {short_repr(mine)}, 기대값 {ref['macro_f1']:.6g}{hint}",
                ),
            )
            return
    shown = ", ".join(f"{r['macro_f1']:.3f}" for r in refs)
    accuracies = ", ".join(f"{r['accuracy']:.3f}" for r in refs)
    check.requirement(name, True, f"{shown} (accuracy {accuracies})")


def check_pair(
    check: Checker, cases: list[dict[str, Any]], got: list[Any], refs: list[dict[str, Any]]
) -> None:
    name = "most_confused_pair: the largest off-diagonal cell"
    found = []
    for case, mine, ref in zip(cases, got, refs, strict=True):
        if ref["largest_error"] == 0:
            if mine is not None:
                check.requirement(
                    name,
                    False,
                    say(
                        f"{case['name']} has no error at all: expected None, got {short_repr(mine)}",
                        f"{case['name']}에는 오류가 하나도 없습니다: None이어야 하는데 받은 값은 "
                        f"{short_repr(mine)}입니다",
                    ),
                )
                return
            continue
        labels = case["labels"]
        if not (isinstance(mine, (list, tuple)) and len(mine) == 2 and all(m in labels for m in mine)):
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: expected a (true, predicted) pair of labels, got {short_repr(mine)}",
                    f"{case['name']}: (true, predicted) label 쌍이어야 하는데 받은 값은 {short_repr(mine)}입니다",
                ),
            )
            return
        true, predicted = mine
        count = ref["matrix"][labels.index(true)][labels.index(predicted)]
        if true == predicted:
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: ({true!r}, {predicted!r}) is on the diagonal — those are the correct answers",
                    f"{case['name']}: ({true!r}, {predicted!r})은(는) 대각선 칸입니다 — 맞힌 답을 세는 칸입니다",
                ),
            )
            return
        if count != ref["largest_error"]:
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: ({true!r} → {predicted!r}) happens {count} times, the largest error cell has {ref['largest_error']}",
                    f"{case['name']}: ({true!r} → {predicted!r})은(는) {count}번 나오지만, 가장 큰 오류 칸은 "
                    f"{ref['largest_error']}번입니다",
                ),
            )
            return
        found.append(f"{true}→{predicted} ×{count}")
    check.requirement(
        name,
        True,
        say(
            f"{'; '.join(found)}; None for the perfect prediction",
            f"{'; '.join(found)}; 완벽한 예측에는 None",
        ),
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check:
        seed = secrets.randbits(30)
        cases = planted_cases(args.quick, seed)
        refs = [reference(case) for case in cases]
        here = Path(__file__).resolve()
        results: dict[str, LearnerResult] = {}
        for function in ("confusion_matrix", "per_class_metrics", "macro_f1", "most_confused_pair"):
            check.progress(
                say(
                    f"calling your {function}() on {len(cases)} cases (seed {seed})",
                    f"여러분의 {function}()을 사례 {len(cases)}개에서 부릅니다 (seed {seed})",
                )
            )
            results[function] = run_learner(args.workspace, here, "probe", function, cases, timeout_s=30)
        if check.require_ran("confusion_matrix() runs", results["confusion_matrix"]):
            check_matrix(check, cases, results["confusion_matrix"].value, refs)
        metrics = results["per_class_metrics"]
        if check.require_ran("per_class_metrics() runs", metrics):
            check_metrics(check, cases, metrics.value, refs)
        check_never_predicted(check, cases, metrics.value if metrics.ok else None, metrics.error)
        if check.require_ran("macro_f1() runs", results["macro_f1"]):
            check_macro(check, cases, results["macro_f1"].value, refs)
        if check.require_ran("most_confused_pair() runs", results["most_confused_pair"]):
            check_pair(check, cases, results["most_confused_pair"].value, refs)


if __name__ == "__main__":
    main()
