"""Checker of the imbalance exercise (docs/EXERCISES.md).

Each of the learner's five functions runs in its own child process (`probe()` below is the driver
there) on the same planted data sets, among them the trivial majority classifier. The reference is
the lab's `labs/errors/imbalance.py`. The accuracy-trap answer is "accuracy − balanced accuracy ≥
0.1"; every planted case lies far from that boundary (the generator redraws one that does not), so
any sensible rule built on a per-class metric gives the same answers. No timing is involved.
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

LEARNER_FILE = "imbalance.py"
TRAP_GAP = 0.1
CLEAR_OF_BOUNDARY = 0.05  # |gap − TRAP_GAP| of every planted case is at least this
PLANTING_TRIES = 100  # redraws allowed (a 6-sample class can make a good model look like a trap)


# -- planted data --------------------------------------------------------------------------------------


def _draw(rng: random.Random, n: int, shares: dict[str, float]) -> list[str]:
    """n labels with exactly round(share · n) of each class (the last takes the rest), shuffled."""
    labels: list[str] = []
    names = list(shares)
    for name in names[:-1]:
        labels += [name] * round(shares[name] * n)
    labels += [names[-1]] * (n - len(labels))
    rng.shuffle(labels)
    return labels


def _predict(rng: random.Random, y_true: list[str], recall: dict[str, float]) -> list[str]:
    """Each sample of class c is predicted right with probability recall[c], else as another class."""
    classes = sorted(set(y_true))
    predicted = []
    for true in y_true:
        if rng.random() < recall[true]:
            predicted.append(true)
        else:
            predicted.append(rng.choice([c for c in classes if c != true]))
    return predicted


def _case(name: str, y_true: list[str], y_pred: list[str]) -> dict[str, Any]:
    return {"name": name, "y_true": y_true, "y_pred": y_pred}


def planted_cases(quick: bool, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    n = 300 if quick else 1000
    skewed = {"normal": 0.90, "warning": 0.08, "defect": 0.02}
    fraud = {"ok": 0.85, "fraud": 0.15}
    balanced = {"red": 1 / 3, "green": 1 / 3, "blue": 1 / 3}
    for _ in range(PLANTING_TRIES):
        y = _draw(rng, n, skewed)
        cases = [
            _case(
                say(
                    "90/8/2 % data, the trivial majority classifier",
                    "90/8/2 % 데이터, 늘 다수 클래스로 답하는 자명한 분류기",
                ),
                y,
                ["normal"] * n,
            )
        ]
        y = _draw(rng, n, fraud)
        cases.append(
            _case(
                say(
                    "85/15 % data, a model that misses most of the minority",
                    "85/15 % 데이터, 소수 클래스를 대부분 놓치는 모델",
                ),
                y,
                _predict(rng, y, {"ok": 0.99, "fraud": 0.2}),
            )
        )
        y = _draw(rng, n, skewed)
        cases.append(
            _case(
                say(
                    "90/8/2 % data, a model that finds every class",
                    "90/8/2 % 데이터, 모든 클래스를 찾는 모델",
                ),
                y,
                _predict(rng, y, dict.fromkeys(skewed, 0.97)),
            )
        )
        y = _draw(rng, n, balanced)
        cases.append(
            _case(
                say("balanced data, a mediocre model", "균형 잡힌 데이터, 그저 그런 모델"),
                y,
                _predict(rng, y, dict.fromkeys(balanced, 0.6)),
            )
        )
        y = _draw(rng, n, balanced)
        cases.append(
            _case(
                say(
                    "balanced data, a model that always answers 'red'",
                    "균형 잡힌 데이터, 늘 'red'라고 답하는 모델",
                ),
                y,
                ["red"] * n,
            )
        )
        cases.append(
            _case(
                say("one class only, always right", "클래스가 하나뿐, 늘 맞힘"),
                ["normal"] * 50,
                ["normal"] * 50,
            )
        )
        # A model may answer a label the data never has (a "review" queue): that class has no
        # recall, so it is no class of the balanced accuracy, but it is one of the MCC's.
        y = _draw(rng, n, fraud)
        y_pred = _predict(rng, y, {"ok": 0.9, "fraud": 0.9})
        cases.append(
            _case(
                say(
                    "85/15 % data, a model that also answers 'review', a label the data never has",
                    "85/15 % 데이터, 데이터에 없는 label인 'review'로도 답하는 모델",
                ),
                y,
                [
                    "review" if predicted != true and rng.random() < 0.7 else predicted
                    for true, predicted in zip(y, y_pred, strict=True)
                ],
            )
        )
        # Worse than chance (a negative MCC): most answers are the next class round the circle.
        y = _draw(rng, n, balanced)
        turned = {"red": "green", "green": "blue", "blue": "red"}
        cases.append(
            _case(
                say(
                    "balanced data, a model worse than chance (it mostly answers the next class)",
                    "균형 잡힌 데이터, 우연보다 못한 모델 (대부분 다음 클래스로 답함)",
                ),
                y,
                [turned[true] if rng.random() < 0.8 else true for true in y],
            )
        )
        if all(abs(reference(c)["gap"] - TRAP_GAP) >= CLEAR_OF_BOUNDARY for c in cases):
            return cases
    raise RuntimeError(f"no planted data sets clear of the trap boundary in {PLANTING_TRIES} draws")


# -- in the learner's child process ------------------------------------------------------------------


def probe(function_name: str, with_predictions: bool, cases: list[dict[str, Any]]) -> list[Any]:
    """The learner's function on every case; an error names the case it happened on."""
    fields = ("y_true", "y_pred") if with_predictions else ("y_true",)
    return call_on_cases(LEARNER_FILE, function_name, cases, fields)


# -- the reference -----------------------------------------------------------------------------------


def reference(case: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    from labs.errors import imbalance
    from labs.errors.confusion import confusion_matrix

    classes = sorted(set(case["y_true"]) | set(case["y_pred"]))
    index = {label: i for i, label in enumerate(classes)}
    y_true = np.array([index[t] for t in case["y_true"]])
    y_pred = np.array([index[p] for p in case["y_pred"]])
    matrix = confusion_matrix(y_true, y_pred, len(classes))
    counts = imbalance.class_counts(y_true, len(classes))
    entropy = imbalance.normalized_entropy(counts)
    accuracy = imbalance.accuracy(matrix)
    balanced = imbalance.balanced_accuracy(matrix)
    present = counts[counts > 0].astype(float)
    return {
        "imbalance_ratio": imbalance.imbalance_ratio(counts),
        "normalized_entropy": 0.0 if entropy is None else entropy,
        "balanced_accuracy": balanced,
        "mcc": imbalance.mcc(matrix),
        "accuracy": accuracy,
        "gap": accuracy - balanced,
        "accuracy_is_misleading": accuracy - balanced >= TRAP_GAP,
        # what common slips give, to name them in the message
        "inverted_ratio": float(present.min() / present.max()),
        "recall_over_all_labels": float(
            np.mean([matrix[i, i] / row if row else 0.0 for i, row in enumerate(matrix.sum(axis=1))])
        ),
        "raw_entropy": float(-(present / present.sum() * np.log(present / present.sum())).sum()),
    }


# -- the requirements --------------------------------------------------------------------------------


def _hint(key: str, mine: Any, ref: dict[str, Any]) -> str:
    if key == "imbalance_ratio" and is_close(mine, ref["inverted_ratio"]):
        return say(
            ": that is min/max; the ratio is the LARGEST count over the smallest (≥ 1)",
            ": 이것은 min/max입니다; ratio는 가장 큰(LARGEST) 개수를 가장 작은 개수로 나눈 값입니다 (≥ 1)",
        )
    if key == "normalized_entropy" and is_close(mine, ref["raw_entropy"]):
        return say(
            ": that is the entropy itself; divide by log k to normalise",
            ": 이것은 entropy 그 자체입니다; 정규화하려면 log k로 나누세요",
        )
    if (
        key == "balanced_accuracy"
        and is_close(mine, ref["accuracy"])
        and not is_close(ref["accuracy"], ref[key])
    ):
        return say(
            ": that is the plain accuracy; average the per-class recalls instead",
            ": 이것은 그냥 accuracy입니다; 대신 클래스별 recall을 평균하세요",
        )
    if key == "balanced_accuracy" and is_close(mine, ref["recall_over_all_labels"]):
        return say(
            ": that averages over every label, also those only predicted; a class absent from"
            " y_true has no recall — average over the classes in y_true",
            ": 예측에만 나오는 label까지 모든 label로 평균했습니다; y_true에 없는 클래스는 recall이"
            " 없습니다 — y_true의 클래스로만 평균하세요",
        )
    if key == "mcc" and ref["mcc"] == 0.0:
        return say(
            ": when the denominator is 0 (one class predicted for everything) MCC is 0.0",
            ": 분모가 0이면 (모든 표본을 한 클래스로 예측하면) MCC는 0.0입니다",
        )
    return ""


METRICS = {
    "imbalance_ratio": ("imbalance_ratio: largest / smallest class count", False),
    "normalized_entropy": ("normalized_entropy: H / log k", False),
    "balanced_accuracy": ("balanced_accuracy: mean per-class recall", True),
    "mcc": ("mcc: multi-class Matthews correlation", True),
}


def check_metric(
    check: Checker, key: str, cases: list[dict[str, Any]], got: list[Any], refs: list[dict[str, Any]]
) -> None:
    name = METRICS[key][0]
    for case, mine, ref in zip(cases, got, refs, strict=True):
        if not is_close(mine, ref[key]):
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: yours {short_repr(mine, 80)}, reference {ref[key]:.6g}{_hint(key, mine, ref)}",
                    f"{case['name']}: 여러분의 값 {short_repr(mine, 80)}, 참고값 {ref[key]:.6g}"
                    f"{_hint(key, mine, ref)}",
                ),
            )
            return
    shown = ", ".join(f"{ref[key]:.3g}" for ref in refs)
    check.requirement(
        name,
        True,
        say(f"{shown} on {len(cases)} planted data sets", f"심어 둔 데이터 세트 {len(cases)}개에서 {shown}"),
    )


def check_trap(
    check: Checker, cases: list[dict[str, Any]], got: list[Any], refs: list[dict[str, Any]]
) -> None:
    name = "accuracy_is_misleading: spots the accuracy trap"
    for case, mine, ref in zip(cases, got, refs, strict=True):
        if not isinstance(mine, bool):
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: return True or False, not {short_repr(mine, 80)}",
                    f"{case['name']}: {short_repr(mine, 80)} 대신 True나 False를 반환하세요",
                ),
            )
            return
        if mine != ref["accuracy_is_misleading"]:
            numbers = (
                f"accuracy {ref['accuracy']:.3f}, balanced accuracy {ref['balanced_accuracy']:.3f}, "
                f"MCC {ref['mcc']:.3f}, imbalance ratio {ref['imbalance_ratio']:.3g}"
            )
            why = (
                say(
                    "the accuracy hides the classes this model misses",
                    "이 모델이 놓치는 클래스를 accuracy가 가립니다",
                )
                if ref["accuracy_is_misleading"]
                else say(
                    "the accuracy tells the truth here (imbalance alone is not the trap; a per-class metric agrees)",
                    "여기서는 accuracy가 사실을 말합니다 (불균형만으로는 함정이 아닙니다; 클래스별 지표도 "
                    "같은 결론입니다)",
                )
            )
            check.requirement(
                name,
                False,
                say(
                    f"{case['name']}: you said {mine}, expected {not mine} — {numbers}: {why}",
                    f"{case['name']}: 여러분의 답은 {mine}, 기대값은 {not mine} — {numbers}: {why}",
                ),
            )
            return
    trapped = sum(ref["accuracy_is_misleading"] for ref in refs)
    check.requirement(
        name,
        True,
        say(
            f"{trapped} misleading, {len(refs) - trapped} honest, including the trivial majority classifier",
            f"accuracy가 오해를 부르는 경우 {trapped}개, 정직한 경우 {len(refs) - trapped}개 "
            "(자명한 다수 클래스 분류기 포함)",
        ),
    )


def main() -> None:
    args = parse_args()
    with Checker(args) as check:
        seed = secrets.randbits(30)
        cases = planted_cases(args.quick, seed)
        refs = [reference(case) for case in cases]
        here = Path(__file__).resolve()
        functions = {**{key: spec[1] for key, spec in METRICS.items()}, "accuracy_is_misleading": True}
        results: dict[str, LearnerResult] = {}
        for function, with_predictions in functions.items():
            check.progress(
                say(
                    f"calling your {function}() on {len(cases)} planted data sets (seed {seed})",
                    f"여러분의 {function}()을 심어 둔 데이터 세트 {len(cases)}개에서 부릅니다 (seed {seed})",
                )
            )
            results[function] = run_learner(
                args.workspace, here, "probe", function, with_predictions, cases, timeout_s=30
            )
        for key in METRICS:
            if check.require_ran(f"{key}() runs", results[key]):
                check_metric(check, key, cases, results[key].value, refs)
        if check.require_ran("accuracy_is_misleading() runs", results["accuracy_is_misleading"]):
            check_trap(check, cases, results["accuracy_is_misleading"].value, refs)


if __name__ == "__main__":
    main()
