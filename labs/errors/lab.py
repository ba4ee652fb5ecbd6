"""에러 분해 lab: where does a model's error come from?

Three analyses, each computed here from numbers measured on this machine:

1. bias-variance decomposition (squared loss, bootstrap; bias_variance.py) of polynomial
   regressions on a noisy sine: which degree under-fits (bias), which over-fits (variance).
2. confusion-matrix error analysis (confusion.py) of a softmax classifier on four Gaussian blobs,
   with planted label noise: per-class precision / recall / F1, the most confused pairs, and how
   many errors are really wrong labels.
3. imbalance detection (imbalance.py): class distribution, imbalance ratio, normalised entropy,
   and the accuracy trap of a majority-class model on 90/8/2 data.

With `--data FILE` parts 2 and 3 run on your own predictions (a CSV with true and predicted labels).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labs._protocol import LabDependencyError, LabUsageError, parse_args, progress

if TYPE_CHECKING:
    from labs.errors.predictions_csv import Predictions

DEFAULT_DEGREES = [1, 3, 5, 9, 12]
MAX_DEGREE = 15
MAX_ROUNDS = 5000
MAX_LABEL_NOISE = 0.5
SIGMA = 0.3  # noise of the synthetic sine: σ² = 0.09 is the irreducible error
SUSPECT_THRESHOLD = 0.9  # model confidence above which an error is flagged as a suspected label error


@dataclass
class Settings:
    rounds: int  # bootstrap rounds per degree
    n_train: int  # training points of the sine (bootstrapped)
    n_test: int  # test points the loss is averaged over
    blobs_per_class: int  # confusion data: samples per class in train and again in test
    imbalanced_n: int  # imbalance data: samples in train and again in test


QUICK = Settings(rounds=50, n_train=60, n_test=200, blobs_per_class=150, imbalanced_n=1000)
FULL = Settings(rounds=300, n_train=60, n_test=1000, blobs_per_class=400, imbalanced_n=3000)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labs.errors",
        description="에러 분해: bias-variance decomposition, confusion matrix, 데이터 불균형 탐지",
    )
    parser.add_argument("--quick", action="store_true", help="작은 설정으로 몇 초 안에 끝낸다")
    parser.add_argument("--out", help="표를 CSV/JSON 파일로 쓸 디렉터리")
    parser.add_argument("--seed", type=int, default=0, help="난수 seed (기본 0)")
    parser.add_argument("--rounds", type=int, help="degree마다 bootstrap 횟수 (quick 50, full 300)")
    parser.add_argument("--degrees", help="다항식 degree 목록, 예: 1,3,9 (기본 1,3,5,9,12)")
    parser.add_argument("--label-noise", type=float, help="뒤집을 라벨 비율 0..0.5 (기본 0.05)")
    parser.add_argument("--data", help="내 예측 CSV (헤더 + 실제/예측 라벨 열): confusion·불균형 분석만 한다")
    parser.add_argument("--true-col", help="--data의 실제 라벨 열 이름 (기본 true 또는 y_true)")
    parser.add_argument("--pred-col", help="--data의 예측 라벨 열 이름 (기본 pred, y_pred, prediction …)")
    parser.add_argument(
        "--score-col", help="--data의 양성 클래스 확률 열 (기본 score, y_score, prob, proba … 있으면 자동)"
    )
    parser.add_argument("--pos-label", help="확률 열이 가리키는 양성 클래스 (기본: 두 라벨 중 큰 쪽, 예: 1)")
    return parser


def parse_degrees(text: str) -> list[int]:
    """'1,3,9' → [1, 3, 9] (sorted, duplicates dropped); anything else is a LabUsageError."""
    degrees = set()
    for part in text.split(","):
        part = part.strip()
        try:
            degree = int(part)
        except ValueError:
            raise LabUsageError(
                f"--degrees: 쉼표로 구분한 정수여야 합니다 (예: 1,3,9), 받은 값 '{text}'"
            ) from None
        if not 0 <= degree <= MAX_DEGREE:
            raise LabUsageError(f"--degrees: degree는 0..{MAX_DEGREE} 사이여야 합니다, 받은 값 {degree}")
        degrees.add(degree)
    return sorted(degrees)


def validate(args: argparse.Namespace) -> None:
    if args.seed < 0:
        raise LabUsageError(f"--seed: 0 이상이어야 합니다, 받은 값 {args.seed}")
    if args.rounds is not None and not 2 <= args.rounds <= MAX_ROUNDS:
        raise LabUsageError(f"--rounds: 2..{MAX_ROUNDS} 사이여야 합니다, 받은 값 {args.rounds}")
    if args.label_noise is not None and not 0.0 <= args.label_noise <= MAX_LABEL_NOISE:
        raise LabUsageError(
            f"--label-noise: 0..{MAX_LABEL_NOISE} 사이의 비율이어야 합니다, 받은 값 {args.label_noise}"
        )
    if args.data is not None:
        for option, value in (
            ("--rounds", args.rounds),
            ("--degrees", args.degrees),
            ("--label-noise", args.label_noise),
        ):
            if value is not None:
                raise LabUsageError(f"{option} 옵션은 합성 데이터용이라 --data와 함께 쓸 수 없습니다")
    else:
        for option, value in (
            ("--true-col", args.true_col),
            ("--pred-col", args.pred_col),
            ("--score-col", args.score_col),
            ("--pos-label", args.pos_label),
        ):
            if value is not None:
                raise LabUsageError(f"{option} 옵션은 --data와 함께만 쓸 수 있습니다")
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        raise LabUsageError(f"--out {args.out}: 디렉터리가 아니라 파일입니다")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(build_parser(), argv)
    validate(args)
    degrees = parse_degrees(args.degrees) if args.degrees is not None else list(DEFAULT_DEGREES)
    try:
        import numpy  # noqa: F401  (the analysis modules below need it)
    except ImportError:
        raise LabDependencyError("the errors lab needs NumPy: pip install numpy") from None

    predictions = None
    if args.data is not None:  # read (and reject) the learner's file before anything else
        from labs.errors.predictions_csv import load_predictions

        predictions = load_predictions(
            args.data, args.true_col, args.pred_col, args.score_col, args.pos_label
        )
    out_dir = prepare_out_dir(args.out) if args.out else None  # fail before the work, not after
    settings = QUICK if args.quick else FULL
    if args.rounds is not None:
        settings = Settings(**{**settings.__dict__, "rounds": args.rounds})
    label_noise = 0.05 if args.label_noise is None else args.label_noise

    if predictions is not None:
        result, extra_files = run_on_file(args.data, predictions)
    else:
        result, extra_files = run_synthetic(settings, degrees, label_noise, args.seed)
    result["artifacts"] = write_artifacts(out_dir, result, extra_files) if out_dir else {}
    progress("done", 1.0, "끝")
    return result


# --------------------------------------------------------------------------------------------
# Synthetic data: all three parts


def run_synthetic(settings: Settings, degrees: list[int], label_noise: float, seed: int):
    import numpy as np

    from labs.errors import bias_variance as bv

    rng = np.random.default_rng(seed)

    # 1. bias-variance ------------------------------------------------------------------------
    progress("bias-variance", 0.0, f"degree {degrees}, bootstrap {settings.rounds}회")
    data = bv.make_noisy_sine(settings.n_train, settings.n_test, SIGMA, rng)

    def on_degree(i: int, degree: int) -> None:
        progress("bias-variance", 0.7 * (i + 1) / len(degrees), f"degree {degree} 끝")

    rows = bv.bias_variance_sweep(data, degrees, settings.rounds, rng, on_degree)
    roles = bv.classify_fits(rows)

    # 2. confusion matrix ---------------------------------------------------------------------
    progress("confusion", 0.7, "softmax 분류기 학습")
    confusion, confusion_extra = synthetic_confusion(settings, label_noise, rng)

    # 3. imbalance ----------------------------------------------------------------------------
    progress("imbalance", 0.85, "90/8/2 데이터에서 accuracy 함정")
    imbalance = synthetic_imbalance(settings, rng)

    findings = (
        bias_variance_findings(rows, roles, settings)
        + confusion_findings(confusion)
        + imbalance_findings(imbalance, synthetic=True)
    )
    tables = [
        ("bias_variance", bias_variance_table(rows, roles, settings.rounds)),
        *confusion_tables(confusion),
        *imbalance_tables(imbalance),
    ]
    best = next(r for r in rows if r["degree"] == roles["best"])
    noise = confusion["label_noise"]
    summary = (
        f"loss 최소 degree {roles['best']} ({best['loss']:.3g}), underfit {_num(roles['underfit'], 'd')}, "
        f"overfit {_num(roles['overfit'], 'd')}; confusion accuracy {noise['observed_accuracy']:.2f}, "
        f"최다 혼동 {_pair_text(confusion)}, 에러 {noise['errors']}건 중 라벨 노이즈 "
        f"{noise['errors_from_label_noise']}건; "
        f"불균형 {imbalance['imbalance_ratio']:.0f}:1에서 majority 모델 accuracy "
        f"{imbalance['majority_baseline']['accuracy']:.2f} vs balanced accuracy "
        f"{imbalance['majority_baseline']['balanced_accuracy']:.2f}"
    )
    result = {
        "summary": summary,
        "tables": [table for _, table in tables],
        "findings": findings,
        "plots": bias_variance_plots(rows),
        "bias_variance": rows,
        "underfit_degree": roles["underfit"],
        "overfit_degree": roles["overfit"],
        "best_degree": roles["best"],
        "confusion": confusion,
        "imbalance": imbalance,
        "settings": {
            "quick": settings is QUICK,
            "seed": seed,
            "rounds": settings.rounds,
            "degrees": degrees,
            "sigma": SIGMA,
            "n_train": settings.n_train,
            "n_test": settings.n_test,
            "label_noise": label_noise,
        },
    }
    return result, {"tables": tables, **confusion_extra}


def synthetic_confusion(settings: Settings, label_noise: float, rng):
    import numpy as np

    from labs.errors import confusion as cm
    from labs.errors.softmax import train_softmax

    data = cm.make_blob_data(settings.blobs_per_class, label_noise, rng)
    k = len(data.labels)
    model = train_softmax(data.x_train, data.y_train, k)  # trained on the NOISY labels, as in real life
    proba = model.predict_proba(data.x_test)
    pred = proba.argmax(axis=1)
    matrix = cm.confusion_matrix(data.y_test, pred, k)  # scored against the labels we have
    attribution = cm.attribute_label_noise(
        data.y_test, data.clean_test, pred, data.flipped_test, proba.max(axis=1), SUSPECT_THRESHOLD
    )
    attribution["rate"] = label_noise
    attribution["flipped_train"] = int(data.flipped_train.sum())
    confusion = {
        "labels": data.labels,
        "matrix": matrix.tolist(),
        "per_class": cm.per_class_metrics(matrix, data.labels),
        "top_confusions": cm.top_confusions(matrix, data.labels),
        "label_noise": attribution,
    }
    names = data.labels
    predictions = {
        "columns": ["true", "pred", "clean", "flipped", "confidence"],
        "rows": [
            [names[t], names[p], names[c], int(f), round(float(conf), 4)]
            for t, p, c, f, conf in zip(
                data.y_test, pred, data.clean_test, data.flipped_test, proba.max(axis=1), strict=True
            )
        ],
    }
    flips = {
        "columns": ["split", "index", "clean", "noisy"],
        "rows": [
            [split, int(i), names[clean[i]], names[noisy[i]]]
            for split, clean, noisy, flipped in (
                ("train", data.clean_train, data.y_train, data.flipped_train),
                ("test", data.clean_test, data.y_test, data.flipped_test),
            )
            for i in np.flatnonzero(flipped)
        ],
    }
    return confusion, {"predictions": predictions, "label_flips": flips}


def synthetic_imbalance(settings: Settings, rng) -> dict[str, Any]:
    import numpy as np

    from labs.errors import imbalance as im
    from labs.errors.confusion import confusion_matrix, per_class_metrics
    from labs.errors.softmax import balanced_class_weights, train_softmax

    labels = im.IMBALANCED_LABELS
    k = len(labels)
    x_train, y_train = im.make_imbalanced_blobs(settings.imbalanced_n, rng)
    x_test, y_test = im.make_imbalanced_blobs(settings.imbalanced_n, rng)

    majority = im.majority_class(y_train, k)
    predictions = {
        "majority": np.full(len(y_test), majority),  # always answer the most frequent class
        "softmax": train_softmax(x_train, y_train, k).predict(x_test),
        "softmax_weighted": train_softmax(
            x_train, y_train, k, class_weight=balanced_class_weights(y_train, k)
        ).predict(x_test),
    }
    models = {}
    for name, pred in predictions.items():
        matrix = confusion_matrix(y_test, pred, k)
        models[name] = {
            **im.summary_metrics(matrix),
            "recall": {label: m["recall"] for label, m in per_class_metrics(matrix, labels).items()},
        }
    counts = im.class_counts(y_test, k)
    return {
        "labels": labels,
        "counts": {label: int(c) for label, c in zip(labels, counts, strict=True)},
        "imbalance_ratio": im.imbalance_ratio(counts),
        "normalized_entropy": im.normalized_entropy(counts),
        "majority_label": labels[majority],
        "majority_baseline": {key: models["majority"][key] for key in _METRICS},
        "models": models,
    }


_METRICS = ("accuracy", "balanced_accuracy", "macro_f1", "mcc")


# --------------------------------------------------------------------------------------------
# A learner's own predictions: confusion + imbalance only


def run_on_file(path: str, data: Predictions):
    import numpy as np

    from labs.errors import confusion as cm
    from labs.errors import imbalance as im

    labels = data.labels
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    y_true = np.array([index[v] for v in data.y_true])
    y_pred = np.array([index[v] for v in data.y_pred])

    progress("confusion", 0.4, f"{len(y_true)}행, 클래스 {k}개")
    matrix = cm.confusion_matrix(y_true, y_pred, k)
    confusion = {
        "labels": labels,
        "matrix": matrix.tolist(),
        "per_class": cm.per_class_metrics(matrix, labels),
        "top_confusions": cm.top_confusions(matrix, labels),
        "label_noise": None,  # unknown for real data: nobody planted the flips
    }

    progress("imbalance", 0.7, "클래스 분포와 majority baseline")
    counts = im.class_counts(y_true, k)
    majority = im.majority_class(y_true, k)
    models = {}
    for name, pred in (("majority", np.full(len(y_true), majority)), ("your_model", y_pred)):
        m = cm.confusion_matrix(y_true, pred, k)
        models[name] = {
            **im.summary_metrics(m),
            "recall": {label: v["recall"] for label, v in cm.per_class_metrics(m, labels).items()},
        }
    imbalance = {
        "labels": labels,
        "counts": {label: int(c) for label, c in zip(labels, counts, strict=True)},
        "imbalance_ratio": im.imbalance_ratio(counts),
        "normalized_entropy": im.normalized_entropy(counts),
        "majority_label": labels[majority],
        "majority_baseline": {key: models["majority"][key] for key in _METRICS},
        "models": models,
    }

    ranking = None
    if data.scores is not None:
        from labs.errors import ranking as rk

        progress("ranking", 0.85, f"확률 열 '{data.score_col}': ROC-AUC, PR-AUC")
        positive = np.array([v == data.positive_label for v in data.y_true])
        scores = np.array(data.scores)
        ranking = {
            "score_col": data.score_col,
            "positive_label": data.positive_label,
            "positive_share": float(positive.mean()),
            "roc_auc": rk.roc_auc(positive, scores),
            "pr_auc": rk.average_precision(positive, scores),
            "thresholds": rk.threshold_table(positive, scores),
        }

    yours = models["your_model"]
    findings = (
        file_findings(confusion, imbalance)
        + confusion_findings(confusion)
        + convention_findings(confusion)
        + imbalance_findings(imbalance, synthetic=False)
        + (ranking_findings(ranking) if ranking else [])
    )
    tables = [*confusion_tables(confusion), *imbalance_tables(imbalance)]
    if ranking:
        tables.append(("thresholds", ranking_table(ranking)))
    summary = (
        f"{Path(path).name}: {len(y_true)}행, 클래스 {k}개, accuracy {yours['accuracy']:.3f} / "
        f"balanced accuracy {yours['balanced_accuracy']:.3f} / MCC {yours['mcc']:.3f}; "
        f"최다 혼동 {_pair_text(confusion)}; imbalance ratio {_num(imbalance['imbalance_ratio'], '.1f')}"
    )
    result = {
        "summary": summary,
        "tables": [table for _, table in tables],
        "findings": findings,
        "plots": [],
        "bias_variance": [],  # needs a model to refit: not possible from a predictions file
        "underfit_degree": None,
        "overfit_degree": None,
        "best_degree": None,
        "confusion": confusion,
        "imbalance": imbalance,
        "ranking": ranking,
        "data": {
            "path": str(Path(path).resolve()),
            "rows": len(y_true),
            "true_col": data.true_col,
            "pred_col": data.pred_col,
            "score_col": data.score_col,
        },
    }
    return result, {"tables": tables}


# --------------------------------------------------------------------------------------------
# Tables, plots and findings (Korean sentences computed from the numbers)


def _num(value: float | None, spec: str) -> str:
    return "없음" if value is None else format(value, spec)


def _pair_text(confusion: dict) -> str:
    top = confusion["top_confusions"]
    return f"{top[0]['true']}→{top[0]['pred']} {top[0]['count']}건" if top else "없음"


def bias_variance_table(rows: list[dict], roles: dict, rounds: int) -> dict:
    def verdict(degree: int) -> str:
        marks = [name for name in ("best", "underfit", "overfit") if roles[name] == degree]
        return ",".join(marks)

    columns = [
        "degree",
        "loss",
        "bias2",
        "variance",
        "identity_residual",
        "true_bias2",
        "noise",
        "noise_residual",
        "fresh_true_bias2",
        "fresh_variance",
        "verdict",
    ]
    return {
        "title": f"Bias-variance 분해 (squared loss, bootstrap {rounds}회; bias2 = mlxtend 방식, noise 포함)",
        "columns": columns,
        "rows": [[*(r[c] for c in columns[:-1]), verdict(r["degree"])] for r in rows],
    }


def bias_variance_plots(rows: list[dict]) -> list[dict]:
    degrees = [r["degree"] for r in rows]
    plot = {
        "title": "Bias-variance: degree별 loss = bias² + variance",
        "x": degrees,
        "series": {key: [r[key] for r in rows] for key in ("bias2", "variance", "loss")},
        "xlabel": "polynomial degree",
        "ylabel": "squared loss",
    }
    plots = [plot]
    losses = [r["loss"] for r in rows]
    if min(losses) > 0 and max(losses) / min(losses) > 100:
        # variance explodes at high degree; on a linear axis the low degrees become a flat line
        plots.append(
            {
                "title": "같은 값, log10 스케일 (값이 수백 배 차이 나서)",
                "x": degrees,
                "series": {
                    key: [math.log10(max(r[key], 1e-12)) for r in rows]
                    for key in ("bias2", "variance", "loss")
                },
                "xlabel": "polynomial degree",
                "ylabel": "log10(squared loss)",
            }
        )
    return plots


def bias_variance_findings(rows: list[dict], roles: dict, settings: Settings) -> list[str]:
    by_degree = {r["degree"]: r for r in rows}
    noise = rows[0]["noise"]
    worst_identity = max(abs(r["identity_residual"]) for r in rows)
    worst_noise = max(rows, key=lambda r: abs(r["noise_residual"]))
    findings = [
        "squared loss에서는 loss = bias² + variance가 정확히 성립한다: "
        f"degree {[r['degree'] for r in rows]}에서 |loss − (bias² + variance)| 최대 "
        f"{worst_identity:.1e} (부동소수점 반올림 수준). 이 bias²는 mlxtend 방식"
        f"(평균 예측 f̄와 noisy y의 차이)이라 noise(σ² = {noise:.3g})를 포함한다.",
        "참 함수 f = sin(2πx)를 알기 때문에 bias²를 더 나눌 수 있다: "
        "loss ≈ (f̄ − f)² + variance + σ². 잔차 |loss − 합|은 최대 "
        f"{abs(worst_noise['noise_residual']):.3g} (degree {worst_noise['degree']}) — 이 식은 "
        f"기댓값으로만 성립해서, test 점 {settings.n_test}개에 한 번 뽑힌 noise의 표본 오차만큼 어긋난다.",
    ]
    best = by_degree[roles["best"]]
    if roles["underfit"] is not None:
        r = by_degree[roles["underfit"]]
        findings.append(
            f"degree {r['degree']} = underfit: true bias²({r['true_bias2']:.3g})가 "
            f"variance({r['variance']:.3g})의 {r['true_bias2'] / max(r['variance'], 1e-300):.0f}배 — "
            "모델이 너무 단순해 곡선을 따라가지 못한다. 데이터를 늘려도 이 bias는 줄지 않고, "
            "더 유연한 모델(높은 degree, feature 추가)이 필요하다."
        )
    else:
        findings.append(
            f"best degree {best['degree']}보다 단순하면서 bias가 지배적인 degree가 목록에 없다 "
            "(underfit 후보 없음)."
        )
    if roles["overfit"] is not None:
        r = by_degree[roles["overfit"]]
        findings.append(
            f"degree {r['degree']} = overfit: variance({r['variance']:.3g})가 loss({r['loss']:.3g})의 "
            f"{r['variance'] / r['loss']:.0%} — bootstrap 표본이 조금만 달라도 곡선이 크게 바뀐다. "
            "처방은 데이터 추가, regularization, 더 낮은 degree."
        )
    else:
        findings.append(
            f"best degree {best['degree']}보다 복잡하면서 variance가 지배적인 degree가 목록에 없다 "
            "(overfit 후보 없음)."
        )
    findings.append(bootstrap_vs_fresh_finding(rows, settings.rounds))
    findings.append(
        f"loss 최소는 degree {best['degree']} ({best['loss']:.3g}): noise 바닥 σ² = {noise:.3g}의 "
        f"{best['loss'] / noise:.2f}배. σ²는 irreducible error라 어떤 degree로도 그 아래로 내려가지 않는다."
    )
    return findings


def bootstrap_vs_fresh_finding(rows: list[dict], rounds: int) -> str:
    """Why the bootstrap's true bias² need not fall with the degree, from the two measurements."""
    lo, hi = rows[0], rows[-1]
    boot = " → ".join(f"{r['true_bias2']:.3g}" for r in rows)
    fresh = " → ".join(f"{r['fresh_true_bias2']:.3g}" for r in rows)
    rises = any(b["true_bias2"] > a["true_bias2"] * 1.05 for a, b in itertools.pairwise(rows))
    text = (
        f"true bias² (degree {lo['degree']}→{hi['degree']}): bootstrap {boot}; 매번 새 training set을 "
        f"뽑으면 {fresh}. "
    )
    if rises:
        text += (
            "bootstrap 쪽이 degree가 커질수록 다시 커지는 것은 모순이 아니다: 하나의 training set을 "
            "복원 추출하면 모든 표본이 그 set의 noise를 공유해서, 유연한 모델의 평균 예측 f̄가 그 noise를 "
            "따라간다(외운 noise가 bias²로 잡힌다). 교과서의 'bias는 복잡도와 함께 준다'는 training set "
            "자체에 대한 기댓값(새 표본)에서의 이야기이고, 실제 데이터에서는 bootstrap이 그 근사다."
        )
    else:
        text += (
            "두 방법 모두 복잡도가 커질수록 bias²가 줄어든다. bootstrap은 training set 하나를 복원 추출하므로 "
            "그 set의 noise가 f̄에 남아, 새 표본으로 잰 값보다 bias²가 약간 크게 나올 수 있다."
        )
    text += (
        f" 두 값 모두 {rounds}회 평균 f̄로 재므로 (f̄ − f)²에는 평균의 흔들림 ≈ variance/{rounds}도 들어 있다 "
        f"(degree {hi['degree']}: 새 표본 variance {hi['fresh_variance']:.3g} / {rounds} ≈ "
        f"{hi['fresh_variance'] / rounds:.3g}) — variance가 큰 고차 degree의 bias² 추정이 부풀려지는 이유다."
    )
    return text


def confusion_tables(confusion: dict) -> list[tuple[str, dict]]:
    labels = confusion["labels"]
    per_class = confusion["per_class"]
    errors = sum(confusion["matrix"][i][j] for i in range(len(labels)) for j in range(len(labels)) if i != j)
    tables = [
        (
            "confusion_matrix",
            {
                "title": "Confusion matrix (행 = 실제 true, 열 = 예측 pred)",
                "columns": ["true \\ pred", *labels],
                "rows": [[label, *row] for label, row in zip(labels, confusion["matrix"], strict=True)],
            },
        ),
        (
            "per_class",
            {
                "title": "클래스별 지표 (precision = 열 기준, recall = 행 기준)",
                "columns": ["class", "support", "precision", "recall", "f1", "error_rate"],
                "rows": [
                    [label, m["support"], m["precision"], m["recall"], m["f1"], m["error_rate"]]
                    for label, m in per_class.items()
                ],
            },
        ),
        (
            "top_confusions",
            {
                "title": "가장 많이 혼동한 (실제 → 예측) 쌍",
                "columns": ["true", "pred", "count", "share_of_errors"],
                "rows": [
                    [c["true"], c["pred"], c["count"], c["count"] / errors]
                    for c in confusion["top_confusions"]
                ],
            },
        ),
    ]
    noise = confusion["label_noise"]
    if noise is not None:
        rows = [
            ["test 라벨 중 뒤집힌 것 (flipped)", noise["flipped"]],
            ["에러 (예측 ≠ 관측 라벨)", noise["errors"]],
            ["  라벨 노이즈 때문 (예측 = 원래 라벨)", noise["errors_from_label_noise"]],
            ["  모델 혼동", noise["errors_from_model"]],
        ]
        if "suspects" in noise:
            s = noise["suspects"]
            rows += [
                [f"확신도 ≥ {s['threshold']:.0%} 에러 = 라벨 오류 후보", s["count"]],
                ["  그중 실제로 뒤집힌 라벨", s["really_flipped"]],
            ]
        tables.append(
            (
                "label_noise",
                {
                    "title": "라벨 노이즈로 본 에러 분해 (test set)",
                    "columns": ["항목", "count"],
                    "rows": rows,
                },
            )
        )
    return tables


def confusion_findings(confusion: dict) -> list[str]:
    labels = confusion["labels"]
    matrix = confusion["matrix"]
    per_class = confusion["per_class"]
    total = sum(map(sum, matrix))
    correct = sum(matrix[i][i] for i in range(len(labels)))
    errors = total - correct
    present = {label: m for label, m in per_class.items() if m["support"] > 0}
    worst_recall = min(present, key=lambda label: present[label]["recall"])
    worst_precision = min(per_class, key=lambda label: per_class[label]["precision"])
    findings = [
        f"{total}개 중 {correct}개 정답 (accuracy {correct / total:.3f}). recall이 가장 낮은 클래스는 "
        f"{worst_recall} ({per_class[worst_recall]['recall']:.2f}), precision이 가장 낮은 클래스는 "
        f"{worst_precision} ({per_class[worst_precision]['precision']:.2f}) — 전체 accuracy 하나로는 "
        "어느 클래스가 문제인지 보이지 않는다."
    ]
    top = confusion["top_confusions"]
    if top:
        t, p = labels.index(top[0]["true"]), labels.index(top[0]["pred"])
        both = matrix[t][p] + matrix[p][t]
        findings.append(
            f"가장 많이 혼동한 쌍: 실제 {labels[t]} → 예측 {labels[p]} {matrix[t][p]}건, "
            f"반대 방향 {matrix[p][t]}건; 합치면 {labels[t]}↔{labels[p]} 쌍이 에러 {errors}건의 "
            f"{both / errors:.0%}. 이 두 클래스를 가르는 feature나 데이터가 개선 1순위다."
        )
    else:
        findings.append("에러가 하나도 없다: 모든 샘플이 confusion matrix의 대각선에 있다.")
    noise = confusion["label_noise"]
    if noise is not None and noise["flipped"] > 0:
        share = noise["errors_from_label_noise"] / noise["errors"] if noise["errors"] else 0.0
        findings.append(
            f"라벨 노이즈 {noise['rate']:.0%}: test 라벨 {noise['flipped']}개가 뒤집혀 있다. "
            f"에러 {noise['errors']}건 중 {noise['errors_from_label_noise']}건({share:.0%})은 모델이 "
            f"원래 라벨을 맞혔는데 라벨이 틀린 경우, 나머지 {noise['errors_from_model']}건은 모델 "
            f"혼동이다. 깨끗한 라벨로 채점하면 accuracy {noise['clean_accuracy']:.3f} (관측 라벨 "
            f"{noise['observed_accuracy']:.3f}) — 에러 분해로 데이터 라벨 오류 때문에 생긴 성능 "
            "저하를 찾아낸 것이다."
        )
        s = noise.get("suspects")
        if s is not None:
            findings.append(
                f"뒤집힌 라벨을 모른다고 치고 모델 확신도 ≥ {s['threshold']:.0%}인 에러 "
                f"{s['count']}건을 라벨 오류 후보로 뽑으면 그중 {s['really_flipped']}건"
                f"({s['precision']:.0%})이 실제로 뒤집힌 라벨이다 (뒤집힌 것 전체의 {s['recall']:.0%}). "
                "이런 후보부터 다시 확인하는 편이 오차 유형을 모른 채 데이터 양만 늘리는 것보다 싸다."
            )
    elif noise is not None:
        findings.append(
            f"라벨 노이즈 0: 에러 {noise['errors']}건은 모두 모델 혼동이다 (--label-noise 0.1로 라벨 "
            "오류를 심어 비교해 보라)."
        )
    return findings


def convention_findings(confusion: dict) -> list[str]:
    """Say which conventions the numbers use, where a learner (or another tool) could differ."""
    labels = confusion["labels"]
    matrix = confusion["matrix"]
    never_predicted = [label for j, label in enumerate(labels) if sum(row[j] for row in matrix) == 0]
    findings = [
        f"macro-F1과 macro 평균은 라벨 {len(labels)}개 전부(실제 또는 예측에 한 번이라도 나온 라벨)의 "
        "단순 평균이다 — scikit-learn의 `f1_score(average='macro')` 기본값과 같은 라벨 집합이다."
    ]
    if never_predicted:
        findings.append(
            f"한 번도 예측되지 않은 클래스 {never_predicted}: precision = TP / (TP + FP) = 0/0이라 "
            "정의되지 않는다. 여기서는 scikit-learn의 zero_division=0처럼 0으로 두었다 (관례일 뿐, "
            "'정밀도가 나쁘다'는 뜻이 아니라 '그 클래스를 아예 고르지 않는다'는 뜻이다)."
        )
    return findings


def ranking_table(ranking: dict) -> dict:
    return {
        "title": f"임계값별 결과 (양성 = '{ranking['positive_label']}', {ranking['score_col']} ≥ t이면 양성)",
        "columns": ["t", "predicted_pos", "tp", "fp", "fn", "precision", "recall", "f1", "fpr"],
        "rows": [
            [
                r["threshold"],
                r["predicted_positive"],
                r["tp"],
                r["fp"],
                r["fn"],
                r["precision"],
                r["recall"],
                r["f1"],
                r["fpr"],
            ]
            for r in ranking["thresholds"]
        ],
    }


def ranking_findings(ranking: dict) -> list[str]:
    roc, pr, share = ranking["roc_auc"], ranking["pr_auc"], ranking["positive_share"]
    if roc is None or pr is None:
        return ["실제 라벨에 양성 또는 음성이 하나도 없어 ROC-AUC와 PR-AUC를 계산할 수 없다."]
    best = max(ranking["thresholds"], key=lambda r: r["f1"])
    findings = [
        f"확률 열 '{ranking['score_col']}' (양성 '{ranking['positive_label']}', 비율 {share:.1%}): "
        f"ROC-AUC {roc:.3f} (무작위 0.5), PR-AUC(average precision) {pr:.3f} (무작위 = 양성 비율 "
        f"{share:.3f}). 임계값 표에서 F1이 가장 큰 t는 {best['threshold']:g} (F1 {best['f1']:.3f}) — "
        "0.5가 항상 최선은 아니다."
    ]
    if share < 0.2 and roc - pr > 0.2:
        findings.append(
            f"양성이 {share:.1%}뿐인 불균형 데이터에서 ROC-AUC {roc:.3f}는 좋아 보이지만 PR-AUC는 "
            f"{pr:.3f}이다: 음성이 많아 FPR은 작아도 거짓 양성 수가 진짜 양성보다 많을 수 있다. "
            "불균형에서는 PR-AUC와 임계값별 precision을 본다."
        )
    return findings


def imbalance_tables(imbalance: dict) -> list[tuple[str, dict]]:
    counts = imbalance["counts"]
    total = sum(counts.values())
    rare = _rarest(imbalance)
    model_names = {
        "majority": f"majority (항상 '{imbalance['majority_label']}')",
        "softmax": "softmax",
        "softmax_weighted": "softmax + class weight",
        "your_model": "내 예측 (--data)",
    }
    return [
        (
            "class_distribution",
            {
                "title": (
                    f"클래스 분포: imbalance ratio {_num(imbalance['imbalance_ratio'], '.1f')}, "
                    f"normalized entropy {_num(imbalance['normalized_entropy'], '.2f')}"
                ),
                "columns": ["class", "count", "share"],
                "rows": [[label, c, c / total] for label, c in counts.items()],
            },
        ),
        (
            "accuracy_trap",
            {
                "title": "Accuracy 함정: 같은 데이터, 다른 지표",
                "columns": ["model", "accuracy", "balanced_accuracy", "macro_f1", "mcc", f"recall[{rare}]"],
                "rows": [
                    [model_names.get(name, name), *(m[key] for key in _METRICS), m["recall"][rare]]
                    for name, m in imbalance["models"].items()
                ],
            },
        ),
    ]


def _rarest(imbalance: dict) -> str:
    present = {label: c for label, c in imbalance["counts"].items() if c > 0}
    return min(present, key=present.get)


def imbalance_findings(imbalance: dict, synthetic: bool) -> list[str]:
    counts = imbalance["counts"]
    total = sum(counts.values())
    ratio = imbalance["imbalance_ratio"]
    entropy = imbalance["normalized_entropy"]
    k_present = sum(1 for c in counts.values() if c > 0)
    shares = " / ".join(f"{label} {c / total:.1%}" for label, c in counts.items())
    base = imbalance["majority_baseline"]
    majority = imbalance["majority_label"]
    findings = [
        f"클래스 분포 {shares}: imbalance ratio(max/min) {_num(ratio, '.1f')}, normalized entropy H/log k "
        f"{_num(entropy, '.2f')} (균등하면 1, 한 클래스로 쏠릴수록 0).",
    ]
    trap = (
        f"항상 '{majority}'만 답하는 majority 모델의 accuracy는 {base['accuracy']:.3f}(= '{majority}' 비율), "
        f"balanced accuracy {base['balanced_accuracy']:.3f}(= 1/{k_present}), "
        f"macro-F1 {base['macro_f1']:.3f}, MCC {base['mcc']:.2f}"
    )
    if ratio is not None and ratio >= 3 and base["accuracy"] >= 0.5:
        findings.append(trap + " — accuracy만 보면 아무것도 배우지 않은 모델이 좋아 보인다 (accuracy 함정).")
    else:
        findings.append(
            trap + " — 분포가 크게 치우치지 않아 majority 모델은 accuracy부터 낮다. accuracy 함정은 "
            "한 클래스가 대부분인 불균형 데이터에서 생긴다."
        )
    rare = _rarest(imbalance)
    models = imbalance["models"]
    if synthetic:
        plain, weighted = models["softmax"], models["softmax_weighted"]
        trade = "상승" if weighted["macro_f1"] > plain["macro_f1"] else "하락"
        findings.append(
            f"softmax 모델: accuracy {plain['accuracy']:.3f}, 가장 드문 '{rare}'의 recall "
            f"{plain['recall'][rare]:.2f}. class weight(n/(k·n_c))를 주면 '{rare}' recall "
            f"{weighted['recall'][rare]:.2f}, balanced accuracy {plain['balanced_accuracy']:.3f}→"
            f"{weighted['balanced_accuracy']:.3f}, accuracy {plain['accuracy']:.3f}→"
            f"{weighted['accuracy']:.3f}, macro-F1 {plain['macro_f1']:.3f}→{weighted['macro_f1']:.3f} "
            f"({trade}). minority recall을 얻는 대가로 다른 클래스의 precision을 잃을 수 있어, "
            "threshold로 그 균형점을 고른다."
        )
    if ratio is not None and ratio >= 3:
        level = "심한 불균형" if ratio >= 10 else "불균형"
        findings.append(
            f"imbalance ratio {ratio:.1f}: {level}(경험칙: 3 이상 불균형, 10 이상 심함). 대처: accuracy 대신 "
            f"balanced accuracy·macro-F1·MCC·클래스별 recall/precision('{rare}' 포함)을 보고하고, "
            "class weight나 resampling(minority oversampling·majority undersampling, train set에만)으로 "
            "학습을 보정하고, "
            "threshold tuning으로 precision/recall 균형을 고른다. test set은 원래 분포 그대로 평가한다."
        )
    elif ratio is not None:
        findings.append(
            f"imbalance ratio {ratio:.1f}: 크게 치우치지 않았다(경험칙: 3 이상이면 불균형) — "
            "이 정도면 accuracy도 쓸 만하지만 클래스별 recall은 함께 본다."
        )
    return findings


def file_findings(confusion: dict, imbalance: dict) -> list[str]:
    yours = imbalance["models"]["your_model"]
    base = imbalance["majority_baseline"]
    gap = yours["accuracy"] - base["accuracy"]
    findings = [
        f"내 예측: accuracy {yours['accuracy']:.3f}, balanced accuracy {yours['balanced_accuracy']:.3f}, "
        f"macro-F1 {yours['macro_f1']:.3f}, MCC {yours['mcc']:.3f}. "
        f"항상 '{imbalance['majority_label']}'만 답하는 baseline의 accuracy는 {base['accuracy']:.3f} "
        f"(차이 {gap:+.3f})."
    ]
    if gap <= 0:
        findings[0] += " 모델이 baseline보다 낫지 않다 — accuracy 숫자를 믿기 전에 이 비교부터 하라."
    never_true = [label for label, c in imbalance["counts"].items() if c == 0]
    if never_true:
        findings.append(
            f"예측에는 있지만 실제 라벨에는 없는 클래스: {never_true} — "
            "라벨 체계가 맞는지(오타, 대소문자) 확인하라."
        )
    return findings


# --------------------------------------------------------------------------------------------
# Artifacts


def prepare_out_dir(out: str) -> Path:
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LabUsageError(f"--out {out}: 디렉터리를 만들 수 없습니다: {exc.strerror}") from None
    return out_dir


def write_artifacts(out_dir: Path, result: dict, extra: dict) -> dict[str, str]:
    """Every table as NAME.csv, the test predictions and label flips as CSV, the result as JSON."""
    progress("artifacts", 0.95, f"{out_dir}에 표 저장")
    artifacts = {}
    files = [(name, table) for name, table in extra["tables"]]
    files += [(name, extra[name]) for name in ("predictions", "label_flips") if name in extra]
    for name, table in files:
        path = out_dir / f"{name}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(table["columns"])
            writer.writerows(table["rows"])
        artifacts[name] = str(path.resolve())
    json_path = out_dir / "result.json"
    artifacts["result"] = str(json_path.resolve())
    result["artifacts"] = artifacts
    json_path.write_text(
        json.dumps(result, ensure_ascii=False, indent=1, default=_json_default) + "\n", encoding="utf-8"
    )
    return artifacts


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):  # numpy arrays
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
