"""`studyapp lab errors --data` on predictions of real scikit-learn models, checked against sklearn.metrics.

The CSVs are written the way people export them (pandas-style index column, `label,prediction`,
string labels, a probability column), and the lab is run through the learner's entry point.
scikit-learn is a test dependency only.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import run_cli


@pytest.fixture(autouse=True)
def needs_sklearn() -> None:
    """Imported when a test runs, not when the file is collected: `import sklearn` costs about 2 s
    of CPU in every worker of the developer loop, which skips these (slow) tests."""
    pytest.importorskip("sklearn")


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def run_errors_lab(csv_path: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("lab", "errors", "--data", str(csv_path), *extra, "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    return payload.get("result", payload)


def assert_matches_sklearn(result: dict[str, Any], y_true: list[str], y_pred: list[str]) -> None:
    from sklearn import metrics

    labels = result["confusion"]["labels"]
    expected = metrics.confusion_matrix(y_true, y_pred, labels=labels)
    assert result["confusion"]["matrix"] == expected.tolist()
    precision, recall, f1, support = metrics.precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0
    )
    for i, label in enumerate(labels):
        got = result["confusion"]["per_class"][label]
        assert got["precision"] == pytest.approx(precision[i], abs=1e-12)
        assert got["recall"] == pytest.approx(recall[i], abs=1e-12)
        assert got["f1"] == pytest.approx(f1[i], abs=1e-12)
        assert got["support"] == support[i]
    yours = result["imbalance"]["models"]["your_model"]
    assert yours["accuracy"] == pytest.approx(metrics.accuracy_score(y_true, y_pred), abs=1e-12)
    # balanced accuracy averages recall over the classes present in y_true, like sklearn's
    assert yours["balanced_accuracy"] == pytest.approx(
        metrics.balanced_accuracy_score(y_true, y_pred), abs=1e-12
    )
    assert yours["macro_f1"] == pytest.approx(
        metrics.f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0), abs=1e-12
    )
    assert yours["mcc"] == pytest.approx(metrics.matthews_corrcoef(y_true, y_pred), abs=1e-12)


@pytest.mark.slow
def test_digits_logistic_regression_with_index_column(tmp_path: Path) -> None:
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, stratify=y, random_state=0)
    pred = LogisticRegression(max_iter=3000).fit(x_train, y_train).predict(x_test)
    # pandas' DataFrame.to_csv() writes an unnamed index column first
    path = write_csv(
        tmp_path / "digits.csv",
        ["", "y_true", "y_pred"],
        [[i, t, p] for i, (t, p) in enumerate(zip(y_test, pred, strict=True))],
    )
    result = run_errors_lab(path)
    assert result["data"]["true_col"] == "y_true" and result["data"]["pred_col"] == "y_pred"
    assert result["confusion"]["labels"] == [str(d) for d in range(10)]  # numeric order, not "0","1","10"…
    assert_matches_sklearn(result, [str(v) for v in y_test], [str(v) for v in pred])


@pytest.mark.slow
def test_weak_tree_that_never_predicts_some_classes(tmp_path: Path) -> None:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, stratify=y, random_state=0)
    pred = DecisionTreeClassifier(max_depth=3, random_state=0).fit(x_train, y_train).predict(x_test)
    path = write_csv(
        tmp_path / "weak.csv", ["label", "prediction"], [[t, p] for t, p in zip(y_test, pred, strict=True)]
    )
    result = run_errors_lab(path)
    never = sorted(set(map(str, y_test)) - set(map(str, pred)))
    assert never, "the depth-3 tree should leave some digit unpredicted"
    assert_matches_sklearn(result, [str(v) for v in y_test], [str(v) for v in pred])
    assert any("0/0" in finding and all(c in finding for c in never) for finding in result["findings"])


@pytest.mark.slow
def test_string_labels_and_a_class_only_in_predictions(tmp_path: Path) -> None:
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    x, y = load_wine(return_X_y=True)
    names = np.array(["barolo", "grignolino", "barbera"])
    x_train, x_test, y_train, y_test = train_test_split(x[:, :1], y, test_size=0.4, random_state=1)
    pred = GaussianNB().fit(x_train, y_train).predict(x_test)
    keep = y_test != 2  # remove one class from the truth: the model still predicts it
    y_true, y_pred = names[y_test[keep]].tolist(), names[pred[keep]].tolist()
    assert "barbera" in y_pred and "barbera" not in y_true
    path = write_csv(
        tmp_path / "wine.csv", ["target", "predicted"], [list(r) for r in zip(y_true, y_pred, strict=True)]
    )
    result = run_errors_lab(path)
    assert_matches_sklearn(result, y_true, y_pred)
    assert result["imbalance"]["counts"]["barbera"] == 0
    assert any("barbera" in finding for finding in result["findings"])


@pytest.mark.slow
def test_probability_column_gives_roc_and_pr_auc(tmp_path: Path) -> None:
    from sklearn import metrics
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    x, y = load_breast_cancer(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, random_state=0, stratify=y)
    model = LogisticRegression(max_iter=5000).fit(x_train, y_train)
    proba = model.predict_proba(x_test)[:, 1]
    pred = model.predict(x_test)
    path = write_csv(
        tmp_path / "cancer.csv",
        ["label", "prediction", "proba"],
        [[t, p, f"{s:.17g}"] for t, p, s in zip(y_test, pred, proba, strict=True)],
    )
    result = run_errors_lab(path)
    ranking = result["ranking"]
    assert ranking["positive_label"] == "1" and ranking["score_col"] == "proba"
    assert ranking["roc_auc"] == pytest.approx(metrics.roc_auc_score(y_test, proba), abs=1e-12)
    assert ranking["pr_auc"] == pytest.approx(metrics.average_precision_score(y_test, proba), abs=1e-12)
    for row in ranking["thresholds"]:
        at = (proba >= row["threshold"]).astype(int)
        assert row["tp"] + row["fp"] == at.sum()
        assert row["precision"] == pytest.approx(metrics.precision_score(y_test, at, zero_division=0))
        assert row["recall"] == pytest.approx(metrics.recall_score(y_test, at))
    assert_matches_sklearn(result, [str(v) for v in y_test], [str(v) for v in pred])


@pytest.mark.slow
def test_score_column_only_derives_labels_at_one_half(tmp_path: Path) -> None:
    from sklearn import metrics
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    """An imbalanced, weak model with ties in its scores: labels come from score ≥ 0.5."""
    x, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    malignant = np.flatnonzero(y == 0)
    keep = np.concatenate([np.flatnonzero(y == 1), rng.choice(malignant, size=40, replace=False)])
    x, y = x[keep], 1 - y[keep]  # malignant (now the rare class) is the positive class 1
    x_train, x_test, y_train, y_test = train_test_split(
        x[:, :1], y, test_size=0.5, random_state=0, stratify=y
    )
    score = np.round(LogisticRegression().fit(x_train, y_train).predict_proba(x_test)[:, 1], 2)  # ties
    path = write_csv(
        tmp_path / "scores.csv", ["y_true", "y_score"], [[t, s] for t, s in zip(y_test, score, strict=True)]
    )
    result = run_errors_lab(path)
    assert result["ranking"]["roc_auc"] == pytest.approx(metrics.roc_auc_score(y_test, score), abs=1e-12)
    assert result["ranking"]["pr_auc"] == pytest.approx(
        metrics.average_precision_score(y_test, score), abs=1e-12
    )
    derived = (score >= 0.5).astype(int)
    assert_matches_sklearn(result, [str(v) for v in y_test], [str(v) for v in derived])


def test_one_class_only_file_runs(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "one.csv", ["y_true", "y_pred"], [["cat", "cat"]] * 5)
    result = run_errors_lab(path)
    assert result["confusion"]["labels"] == ["cat"]
    assert result["imbalance"]["models"]["your_model"]["accuracy"] == 1.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"y_true,y_pred\n1,1\n0,\x001\n", "NUL"),
        ("y_true,y_pred\n사과,사과\n배,사과\n".encode("cp949"), "CP949"),
        (b"\xff\xfey\x00_\x00t\x00", "UTF-16"),
        (b"label,proba\n1,0.9\n0,1.7\n", "0..1"),
        (b"label,proba\n1,0.9\n0,nan\n", "0..1"),
        (b"label,proba\na,0.9\nb,0.2\nc,0.4\n", "이진 분류"),
    ],
)
def test_bad_predictions_files_are_one_line_usage_errors(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    result = run_cli("lab", "errors", "--data", str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr


def test_fifo_and_devices_are_refused_without_blocking(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "preds.csv"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        result = run_cli("lab", "errors", "--data", path)
        assert result.returncode == 2, result.stderr
        assert "일반 파일이 아니라" in result.stderr and "Traceback" not in result.stderr
