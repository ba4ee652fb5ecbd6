"""Tests of the `errors` lab: the pure functions against independent computations, then real runs."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from labs._protocol import LabUsageError
from labs.errors import bias_variance as bv
from labs.errors import confusion as cm
from labs.errors import imbalance as im
from labs.errors.lab import main, parse_degrees
from labs.errors.predictions_csv import load_predictions, sort_labels
from tests.labs.conftest import run_lab_process

REPO = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------
# bias-variance


def test_identity_loss_equals_bias_plus_variance_exactly():
    rng = np.random.default_rng(1)
    predictions = rng.normal(0.0, 3.0, size=(40, 25))  # any predictions at all: it is algebra
    y = rng.normal(size=25)
    parts = bv.decompose(predictions, y)
    assert abs(parts["loss"] - (parts["bias2"] + parts["variance"])) < 1e-9
    assert parts["identity_residual"] == parts["loss"] - (parts["bias2"] + parts["variance"])


def test_decompose_matches_mlxtend_formulas_written_as_loops():
    rng = np.random.default_rng(2)
    predictions = rng.normal(size=(7, 5))
    y = rng.normal(size=5)
    rounds, n = predictions.shape
    # mlxtend: per-round mean squared error, averaged over rounds
    loss = sum(sum((predictions[r, i] - y[i]) ** 2 for i in range(n)) / n for r in range(rounds)) / rounds
    main_pred = [sum(predictions[r, i] for r in range(rounds)) / rounds for i in range(n)]
    bias = sum((main_pred[i] - y[i]) ** 2 for i in range(n)) / n
    var = sum((main_pred[i] - predictions[r, i]) ** 2 for r in range(rounds) for i in range(n)) / (rounds * n)
    parts = bv.decompose(predictions, y)
    assert parts["loss"] == pytest.approx(loss, rel=1e-12)
    assert parts["bias2"] == pytest.approx(bias, rel=1e-12)
    assert parts["variance"] == pytest.approx(var, rel=1e-12)


@pytest.fixture(scope="module")
def sweep():
    rng = np.random.default_rng(0)
    data = bv.make_noisy_sine(60, 2000, 0.3, rng)
    return bv.bias_variance_sweep(data, [1, 3, 5, 9, 12], 60, rng)


def test_sweep_identities(sweep):
    for row in sweep:
        assert abs(row["identity_residual"]) < 1e-9
        assert row["noise"] == pytest.approx(0.09)
        assert row["bias2"] >= row["noise"] * 0.8  # mlxtend's bias² still contains the noise


def test_noise_aware_identity_holds_on_average(sweep):
    # loss ≈ (f̄ − f)² + variance + σ²: only in expectation, so a tolerance (σ² = 0.09, 2000 test points)
    for row in sweep[:3]:  # well-behaved degrees; high degrees add large-variance cross terms
        assert abs(row["noise_residual"]) < 0.03, row


def test_sweep_finds_underfit_best_overfit(sweep):
    roles = bv.classify_fits(sweep)
    assert roles["underfit"] == 1
    assert roles["best"] in (3, 5)
    assert roles["overfit"] in (9, 12)
    by_degree = {r["degree"]: r for r in sweep}
    assert by_degree[1]["true_bias2"] > 10 * by_degree[1]["variance"]
    assert by_degree[12]["variance"] > by_degree[12]["true_bias2"]


def test_classify_fits_rules():
    rows = [
        {"degree": 1, "loss": 0.30, "bias2": 0.29, "variance": 0.01, "true_bias2": 0.20},
        {"degree": 3, "loss": 0.10, "bias2": 0.095, "variance": 0.005, "true_bias2": 0.006},
        {"degree": 9, "loss": 0.50, "bias2": 0.10, "variance": 0.40, "true_bias2": 0.01},
    ]
    assert bv.classify_fits(rows) == {"best": 3, "underfit": 1, "overfit": 9}
    assert bv.classify_fits(rows[1:]) == {"best": 3, "underfit": None, "overfit": 9}
    assert bv.classify_fits(rows[:2]) == {"best": 3, "underfit": 1, "overfit": None}


def test_parse_degrees():
    assert parse_degrees("9, 1,3,3") == [1, 3, 9]
    for bad in ("", "a", "1,,3", "-1", "99"):
        with pytest.raises(LabUsageError):
            parse_degrees(bad)


# --------------------------------------------------------------------------------------------
# confusion matrix


def test_confusion_matrix_agrees_with_counter():
    rng = np.random.default_rng(3)
    k = 5
    y_true = rng.integers(0, k, 500)
    y_pred = rng.integers(0, k, 500)
    counts = Counter(zip(y_true.tolist(), y_pred.tolist(), strict=True))
    expected = [[counts[(t, p)] for p in range(k)] for t in range(k)]
    assert cm.confusion_matrix(y_true, y_pred, k).tolist() == expected


def test_per_class_metrics_recomputed_from_labels():
    rng = np.random.default_rng(4)
    k = 4
    y_true = rng.integers(0, k, 300)
    y_pred = np.where(rng.random(300) < 0.7, y_true, rng.integers(0, k, 300))
    labels = ["a", "b", "c", "d"]
    metrics = cm.per_class_metrics(cm.confusion_matrix(y_true, y_pred, k), labels)
    for c, label in enumerate(labels):
        tp = sum(1 for t, p in zip(y_true, y_pred, strict=True) if t == c and p == c)
        precision = tp / sum(1 for p in y_pred if p == c)
        recall = tp / sum(1 for t in y_true if t == c)
        m = metrics[label]
        assert m["precision"] == pytest.approx(precision)
        assert m["recall"] == pytest.approx(recall)
        assert m["f1"] == pytest.approx(2 * precision * recall / (precision + recall))
        assert m["error_rate"] == pytest.approx(1 - recall)
        assert m["support"] == sum(1 for t in y_true if t == c)


def test_top_confusions_order():
    matrix = np.array([[5, 1, 7], [0, 4, 2], [3, 0, 9]])
    top = cm.top_confusions(matrix, ["x", "y", "z"], limit=3)
    assert top == [
        {"true": "x", "pred": "z", "count": 7},
        {"true": "z", "pred": "x", "count": 3},
        {"true": "y", "pred": "z", "count": 2},
    ]


def test_flip_labels_flips_exactly_the_fraction_to_other_classes():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 1000)
    noisy, flipped = cm.flip_labels(y, 0.1, 4, rng)
    assert flipped.sum() == 100
    assert np.all(noisy[flipped] != y[flipped])
    assert np.all(noisy[~flipped] == y[~flipped])


def test_label_noise_attribution_finds_planted_flips():
    clean = np.array([0, 1, 2, 3] * 25)
    pred = clean.copy()  # a model that knows the clean labels...
    model_mistakes = [1, 6, 11]
    pred[model_mistakes] = (clean[model_mistakes] + 1) % 4  # ...except three real mistakes
    observed = clean.copy()
    flips = [20, 40, 60, 80, 99]
    observed[flips] = (clean[flips] + 2) % 4
    flipped = np.zeros(len(clean), dtype=bool)
    flipped[flips] = True
    confidence = np.where(np.isin(np.arange(len(clean)), flips), 0.99, 0.6)
    result = cm.attribute_label_noise(observed, clean, pred, flipped, confidence, threshold=0.9)
    assert result["flipped"] == 5
    assert result["errors"] == 8
    assert result["errors_from_label_noise"] == 5  # every planted flip, found
    assert result["errors_from_model"] == 3
    assert result["clean_accuracy"] == pytest.approx(97 / 100)
    assert result["suspects"]["count"] == 5
    assert result["suspects"]["precision"] == 1.0


def test_flip_the_model_agrees_with_is_not_blamed_on_noise():
    # a flipped sample where the model predicts something else than the clean label: model error
    clean, observed, pred = np.array([0, 1]), np.array([2, 1]), np.array([3, 1])
    result = cm.attribute_label_noise(observed, clean, pred, np.array([True, False]))
    assert result["errors_from_label_noise"] == 0
    assert result["errors_from_model"] == 1


# --------------------------------------------------------------------------------------------
# imbalance


def test_majority_class_trap_figures():
    y = np.array([0] * 900 + [1] * 80 + [2] * 20)  # 90 / 8 / 2
    pred = np.zeros_like(y)  # always the majority class
    metrics = im.summary_metrics(cm.confusion_matrix(y, pred, 3))
    assert metrics["accuracy"] == pytest.approx(0.9)
    assert metrics["balanced_accuracy"] == pytest.approx(1 / 3)
    assert metrics["mcc"] == 0.0
    assert metrics["macro_f1"] == pytest.approx((2 * 0.9 / 1.9) / 3)
    counts = im.class_counts(y, 3)
    assert im.imbalance_ratio(counts) == pytest.approx(45.0)
    p = np.array([0.9, 0.08, 0.02])
    assert im.normalized_entropy(counts) == pytest.approx(-(p * np.log(p)).sum() / math.log(3))


def test_entropy_and_ratio_edges():
    assert im.normalized_entropy(np.array([50, 50, 50])) == pytest.approx(1.0)
    assert im.normalized_entropy(np.array([7, 0])) is None
    assert im.imbalance_ratio(np.array([10, 0, 5])) == pytest.approx(2.0)  # absent classes ignored


def _mcc_as_correlation(y_true, y_pred, k):
    """Independent MCC: Pearson correlation of the one-hot truth and prediction matrices."""
    x, y = np.eye(k)[y_true], np.eye(k)[y_pred]
    x, y = x - x.mean(axis=0), y - y.mean(axis=0)
    den = math.sqrt((x * x).sum() * (y * y).sum())
    return (x * y).sum() / den if den else 0.0


def test_mcc_matches_correlation_and_binary_formula():
    rng = np.random.default_rng(6)
    for k in (2, 3, 5):
        y_true = rng.integers(0, k, 400)
        y_pred = np.where(rng.random(400) < 0.6, y_true, rng.integers(0, k, 400))
        matrix = cm.confusion_matrix(y_true, y_pred, k)
        assert im.mcc(matrix) == pytest.approx(_mcc_as_correlation(y_true, y_pred, k))
    (tn, fp), (fn, tp) = [[50, 10], [5, 35]]
    binary = (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert im.mcc(np.array([[50, 10], [5, 35]])) == pytest.approx(binary)
    assert im.mcc(np.diag([3, 4, 5])) == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------
# --data CSV


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_load_predictions_good_and_custom_columns(tmp_path):
    good = _write(tmp_path, "good.csv", "\ufeffid,y_true,y_pred\n1,cat,cat\n2,dog,cat\n\n3,bird,dog\n")
    data = load_predictions(str(good))
    assert (data.true_col, data.pred_col) == ("y_true", "y_pred")
    assert data.y_true == ["cat", "dog", "bird"] and data.y_pred == ["cat", "cat", "dog"]
    assert data.labels == ["bird", "cat", "dog"]
    custom = _write(tmp_path, "custom.csv", "gold,guess\n10,2\n2,2\n")
    data = load_predictions(str(custom), "gold", "guess")
    assert data.labels == ["2", "10"]  # numeric order, labels kept as text
    assert sort_labels({"b", "a", "10"}) == ["10", "a", "b"]


def test_main_on_data_file_skips_bias_variance(tmp_path):
    path = _write(tmp_path, "p.csv", "true,pred\n" + "a,a\n" * 18 + "b,a\nb,b\n")
    result = main(["--data", str(path)])
    assert result["bias_variance"] == [] and result["best_degree"] is None
    assert result["confusion"]["matrix"] == [[18, 0], [1, 1]]
    assert result["confusion"]["label_noise"] is None
    assert result["imbalance"]["counts"] == {"a": 18, "b": 2}
    assert result["imbalance"]["majority_baseline"]["accuracy"] == pytest.approx(0.9)
    assert result["imbalance"]["majority_baseline"]["mcc"] == 0.0


BROKEN_CSV = {
    "missing": None,
    "empty": "",
    "no_header": "0,1\n1,1\n0,0\n",
    "missing_columns": "a,b\n1,1\n0,0\n",
    "ragged": "true,pred\n1,1\n0,0,3\n1,0\n",
    "one_row": "true,pred\n1,1\n",
    "empty_value": "true,pred\n1,\n0,0\n",
    "not_utf8": b"\xff\xfe\x00t\x00r",
}


def _run_lab(args: list[str], timeout: float = 60) -> tuple[int, list[dict], str]:
    proc, messages = run_lab_process("errors", *args, timeout=timeout)
    return proc.returncode, messages, proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BROKEN_CSV))
def test_broken_csv_exits_2_with_one_line(tmp_path, case):
    path = tmp_path / f"{case}.csv"
    if BROKEN_CSV[case] is not None:
        _write(tmp_path, path.name, BROKEN_CSV[case])
    code, messages, _ = _run_lab(["--data", str(path)])
    assert code == 2
    assert len(messages) == 1 and messages[0]["type"] == "error" and messages[0]["kind"] == "usage"
    assert "\n" not in messages[0]["message"] and str(path) in messages[0]["message"]


@pytest.mark.slow
def test_good_csv_runs_in_a_subprocess(tmp_path):
    path = _write(tmp_path, "p.csv", "true,pred\ncat,cat\ndog,cat\ncat,cat\nbird,dog\ndog,dog\n")
    code, messages, _ = _run_lab(["--data", str(path), "--out", str(tmp_path / "out")])
    assert code == 0
    result = messages[-1]["result"]
    assert result["confusion"]["labels"] == ["bird", "cat", "dog"]
    assert result["confusion"]["matrix"] == [[0, 0, 1], [0, 2, 0], [0, 1, 1]]
    assert Path(result["artifacts"]["confusion_matrix"]).exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["--rounds", "1"],
        ["--degrees", "x"],
        ["--label-noise", "0.9"],
        ["--label-noise", "nan"],
        ["--seed", "-3"],
        ["--true-col", "t"],
        ["--data", "x.csv", "--degrees", "1,3"],
        ["--no-such-option"],
    ],
)
def test_bad_options_are_usage_errors(argv):
    with pytest.raises(LabUsageError):
        main(argv)


# --------------------------------------------------------------------------------------------
# the real lab, as studyapp runs it


@pytest.mark.slow
def test_quick_run_protocol_and_numbers(tmp_path):
    out = tmp_path / "run"
    code, messages, stderr = _run_lab(["--quick", "--out", str(out)])
    assert code == 0, stderr
    assert all(m["type"] == "progress" for m in messages[:-1]) and messages[-1]["type"] == "result"
    result = messages[-1]["result"]
    for key in (
        "lab",
        "status",
        "summary",
        "tables",
        "findings",
        "plots",
        "bias_variance",
        "underfit_degree",
        "overfit_degree",
        "best_degree",
        "confusion",
        "imbalance",
    ):
        assert key in result, key
    assert result["lab"] == "errors" and result["status"] == "ok"

    rows = result["bias_variance"]
    assert [r["degree"] for r in rows] == [1, 3, 5, 9, 12]
    for r in rows:
        assert abs(r["loss"] - (r["bias2"] + r["variance"])) < 1e-9
        assert abs(r["identity_residual"]) < 1e-9
    for r in rows[:3]:
        assert abs(r["noise_residual"]) < 0.05
    assert result["underfit_degree"] == 1
    assert result["best_degree"] == min(rows, key=lambda r: r["loss"])["degree"]
    assert result["overfit_degree"] in (9, 12)
    plot = result["plots"][0]
    assert plot["x"] == [1, 3, 5, 9, 12] and set(plot["series"]) == {"bias2", "variance", "loss"}

    confusion = result["confusion"]
    matrix = np.array(confusion["matrix"])
    assert matrix.shape == (4, 4) and matrix.sum() == 600
    noise = confusion["label_noise"]
    assert noise["flipped"] > 0
    assert noise["errors_from_label_noise"] + noise["errors_from_model"] == matrix.sum() - np.trace(matrix)
    assert 0 < noise["errors_from_label_noise"] <= noise["flipped"]
    for label, m in confusion["per_class"].items():
        c = confusion["labels"].index(label)
        assert m["recall"] == pytest.approx(matrix[c, c] / matrix[c].sum())

    imbalance = result["imbalance"]
    assert imbalance["imbalance_ratio"] > 10
    base = imbalance["majority_baseline"]
    assert base["accuracy"] > 0.85 and base["balanced_accuracy"] == pytest.approx(1 / 3) and base["mcc"] == 0
    assert len(result["findings"]) >= 8

    for path in result["artifacts"].values():
        assert Path(path).is_file() and Path(path).parent == out
    saved = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert saved["confusion"]["matrix"] == confusion["matrix"]
    # the saved test predictions are a ready --data file
    code, messages, _ = _run_lab(["--data", str(out / "predictions.csv")])
    assert code == 0 and messages[-1]["result"]["confusion"]["matrix"] == confusion["matrix"]


def test_lab_yaml():
    meta = yaml.safe_load((REPO / "labs" / "errors" / "lab.yaml").read_text(encoding="utf-8"))
    assert meta["id"] == "errors"
    assert meta["topics"] == ["error-decomposition"]
    assert meta["checklist"] == ["bias-variance", "confusion-matrix", "imbalance-detection"]
    assert meta["needs"] == ["numpy"]
    assert (meta["timeout_s"], meta["quick_timeout_s"]) == (120, 60)
    question = meta["check_question"]
    assert question["answer"] in ("O", "X") and question["statement"] and question["explanation"]


def test_fresh_training_sets_show_the_textbook_bias_curve(sweep):
    """New training sets per round: bias² falls from the underfit degree to the best one, and the
    bootstrap of ONE training set (which keeps that set's noise in f̄) never measures less bias²
    than the fresh samples at the flexible degrees beyond the best."""
    by_degree = {row["degree"]: row for row in sweep}
    assert by_degree[5]["fresh_true_bias2"] < by_degree[1]["fresh_true_bias2"] / 10
    for degree in (5, 9):
        assert by_degree[degree]["true_bias2"] > by_degree[degree]["fresh_true_bias2"]
    # at the bias-dominated degree both estimate the same systematic error
    assert by_degree[1]["fresh_true_bias2"] == pytest.approx(by_degree[1]["true_bias2"], rel=0.2)
