"""WRONG on purpose: no guard for 0 / 0: a class that is never predicted crashes.

Rows = true class, columns = predicted class. 0 / 0 counts as 0 (scikit-learn's
zero_division=0), so a class that is never predicted has precision 0 instead of a crash.
"""

from __future__ import annotations


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator


def confusion_matrix(y_true: list[str], y_pred: list[str], labels: list[str]) -> list[list[int]]:
    """len(labels) × len(labels) counts; rows = true class, columns = predicted class."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for true, predicted in zip(y_true, y_pred, strict=True):
        matrix[index[true]][index[predicted]] += 1
    return matrix


def per_class_metrics(y_true: list[str], y_pred: list[str], labels: list[str]) -> dict[str, dict[str, float]]:
    """{label: {"precision": ..., "recall": ..., "f1": ..., "support": number of true samples}}."""
    matrix = confusion_matrix(y_true, y_pred, labels)
    report = {}
    for c, label in enumerate(labels):
        correct = matrix[c][c]
        predicted_as_c = sum(row[c] for row in matrix)
        really_c = sum(matrix[c])
        precision = _ratio(correct, predicted_as_c)
        recall = _ratio(correct, really_c)
        report[label] = {
            "precision": precision,
            "recall": recall,
            "f1": _ratio(2 * precision * recall, precision + recall),
            "support": really_c,
        }
    return report


def macro_f1(y_true: list[str], y_pred: list[str], labels: list[str]) -> float:
    """The mean of the per-class F1 scores: every class counts the same, however rare."""
    f1_scores = [metrics["f1"] for metrics in per_class_metrics(y_true, y_pred, labels).values()]
    return sum(f1_scores) / len(f1_scores) if f1_scores else 0.0


def most_confused_pair(y_true: list[str], y_pred: list[str], labels: list[str]) -> tuple[str, str] | None:
    """(true label, predicted label) of the largest OFF-diagonal cell; None when there is no error."""
    matrix = confusion_matrix(y_true, y_pred, labels)
    best: tuple[str, str] | None = None
    best_count = 0
    for i, true_label in enumerate(labels):
        for j, predicted_label in enumerate(labels):
            if i != j and matrix[i][j] > best_count:
                best, best_count = (true_label, predicted_label), matrix[i][j]
    return best
