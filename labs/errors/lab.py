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
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labs._protocol import LabDependencyError, LabUsageError, csv_text, parse_args, progress, write_artifact
from labs.errors.findings import (
    bias_variance_findings,
    confusion_findings,
    convention_findings,
    file_findings,
    imbalance_findings,
    num_text,
    pair_text,
    ranking_findings,
    rarest_class,
)

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
        bias_variance_findings(rows, roles, rounds=settings.rounds, n_test=settings.n_test)
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
        f"loss 최소 degree {roles['best']} ({best['loss']:.3g}), underfit {num_text(roles['underfit'], 'd')}, "
        f"overfit {num_text(roles['overfit'], 'd')}; confusion accuracy {noise['observed_accuracy']:.2f}, "
        f"최다 혼동 {pair_text(confusion)}, 에러 {noise['errors']}건 중 라벨 노이즈 "
        f"{noise['errors_from_label_noise']}건; "
        f"불균형 {imbalance['imbalance_ratio']:.0f}:1에서 majority 모델 accuracy "
        f"{imbalance['majority_baseline']['accuracy']:.2f} vs balanced accuracy "
        f"{imbalance['majority_baseline']['balanced_accuracy']:.2f}"
    )
    settings_used = {
        "quick": settings is QUICK,
        "seed": seed,
        "rounds": settings.rounds,
        "degrees": degrees,
        "sigma": SIGMA,
        "n_train": settings.n_train,
        "n_test": settings.n_test,
        "label_noise": label_noise,
    }
    result = lab_result(
        summary, tables, findings, confusion, imbalance, rows=rows, roles=roles, settings=settings_used
    )
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
    confusion = confusion_report(matrix, data.labels, attribution)
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
    return imbalance_report(y_test, predictions, labels, majority)


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
    # label_noise is unknown for real data: nobody planted the flips
    confusion = confusion_report(cm.confusion_matrix(y_true, y_pred, k), labels, None)

    progress("imbalance", 0.7, "클래스 분포와 majority baseline")
    majority = im.majority_class(y_true, k)
    predictions = {"majority": np.full(len(y_true), majority), "your_model": y_pred}
    imbalance = imbalance_report(y_true, predictions, labels, majority)

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

    yours = imbalance["models"]["your_model"]
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
        f"최다 혼동 {pair_text(confusion)}; imbalance ratio {num_text(imbalance['imbalance_ratio'], '.1f')}"
    )
    source = {
        "path": str(Path(path).resolve()),
        "rows": len(y_true),
        "true_col": data.true_col,
        "pred_col": data.pred_col,
        "score_col": data.score_col,
    }
    result = lab_result(summary, tables, findings, confusion, imbalance, ranking=ranking, data=source)
    return result, {"tables": tables}


# --------------------------------------------------------------------------------------------
# The result, the same for synthetic data and for --data


_METRICS = ("accuracy", "balanced_accuracy", "macro_f1", "mcc")


def lab_result(
    summary: str,
    tables: list[tuple[str, dict]],
    findings: list[str],
    confusion: dict,
    imbalance: dict,
    *,
    rows: list[dict] | None = None,
    roles: dict | None = None,
    **specific: Any,
) -> dict[str, Any]:
    """The result dict of either path. `rows` and `roles` are the bias-variance sweep (synthetic
    data only: a predictions file has no model to refit); `specific` is what only one path reports
    (`settings`; `ranking` and `data`)."""
    return {
        "summary": summary,
        "tables": [table for _, table in tables],
        "findings": findings,
        "plots": bias_variance_plots(rows) if rows is not None else [],
        "bias_variance": rows if rows is not None else [],
        "underfit_degree": roles["underfit"] if roles is not None else None,
        "overfit_degree": roles["overfit"] if roles is not None else None,
        "best_degree": roles["best"] if roles is not None else None,
        "confusion": confusion,
        "imbalance": imbalance,
        **specific,
    }


def confusion_report(matrix: Any, labels: list[str], label_noise: dict | None) -> dict[str, Any]:
    """The confusion part of a result: the matrix, per-class metrics, the most confused pairs."""
    from labs.errors import confusion as cm

    return {
        "labels": labels,
        "matrix": matrix.tolist(),
        "per_class": cm.per_class_metrics(matrix, labels),
        "top_confusions": cm.top_confusions(matrix, labels),
        "label_noise": label_noise,
    }


def imbalance_report(y_true: Any, predictions: dict[str, Any], labels: list[str], majority: int) -> dict:
    """The imbalance part of a result: the class distribution of `y_true`, and every model of
    `predictions` (name → predicted classes; "majority" among them) scored on it."""
    from labs.errors import imbalance as im
    from labs.errors.confusion import confusion_matrix, per_class_metrics

    k = len(labels)
    models = {}
    for name, pred in predictions.items():
        matrix = confusion_matrix(y_true, pred, k)
        models[name] = {
            **im.summary_metrics(matrix),
            "recall": {label: m["recall"] for label, m in per_class_metrics(matrix, labels).items()},
        }
    counts = im.class_counts(y_true, k)
    return {
        "labels": labels,
        "counts": {label: int(c) for label, c in zip(labels, counts, strict=True)},
        "imbalance_ratio": im.imbalance_ratio(counts),
        "normalized_entropy": im.normalized_entropy(counts),
        "majority_label": labels[majority],
        "majority_baseline": {key: models["majority"][key] for key in _METRICS},
        "models": models,
    }


# --------------------------------------------------------------------------------------------
# Tables and plots (the findings are in findings.py)


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


def imbalance_tables(imbalance: dict) -> list[tuple[str, dict]]:
    counts = imbalance["counts"]
    total = sum(counts.values())
    rare = rarest_class(imbalance)
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
                    f"클래스 분포: imbalance ratio {num_text(imbalance['imbalance_ratio'], '.1f')}, "
                    f"normalized entropy {num_text(imbalance['normalized_entropy'], '.2f')}"
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


# --------------------------------------------------------------------------------------------
# Artifacts


def prepare_out_dir(out: str) -> Path:
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LabUsageError(f"--out {out}: 디렉터리를 만들 수 없습니다: {exc.strerror}") from None
    return out_dir


def _inert_cell(value: Any) -> Any:
    """A label from the learner's CSV that a spreadsheet would run as a formula (=, +, -, @ …)
    gets a leading apostrophe; numbers such as -1 stay numbers."""
    if not isinstance(value, str) or not value or value[0] not in "=+-@\t\r":
        return value
    try:
        float(value)
        return value
    except ValueError:
        return "'" + value


def write_artifacts(out_dir: Path, result: dict, extra: dict) -> dict[str, str]:
    """Every table as NAME.csv, the test predictions and label flips as CSV, the result as JSON."""
    progress("artifacts", 0.95, f"{out_dir}에 표 저장")
    artifacts = {}
    files = [(name, table) for name, table in extra["tables"]]
    files += [(name, extra[name]) for name in ("predictions", "label_flips") if name in extra]
    for name, table in files:
        rows = [[_inert_cell(c) for c in table["columns"]]]
        rows += [[_inert_cell(c) for c in row] for row in table["rows"]]
        artifacts[name] = write_artifact(out_dir / f"{name}.csv", csv_text(rows))
    json_path = out_dir / "result.json"
    artifacts["result"] = str(json_path.resolve())
    result["artifacts"] = artifacts
    write_artifact(json_path, json.dumps(result, ensure_ascii=False, indent=1, default=_json_default) + "\n")
    return artifacts


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):  # numpy arrays
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
