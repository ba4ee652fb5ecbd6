"""Per-class errors from a confusion matrix.

Rows of the matrix are the TRUE class, columns the PREDICTED class: cell [i][j] counts the
samples of class labels[i] that the model called labels[j]. The diagonal holds the correct
answers; everything off it is an error, and WHICH cell tells you which classes get mixed up.

    precision_c = M[c][c] / (sum of column c)   of everything we called c, how much really was c
    recall_c    = M[c][c] / (sum of row c)      of the real c, how much we found
    F1_c        = 2 · precision_c · recall_c / (precision_c + recall_c)

A class the model never predicts has an empty column (0 / 0): its precision is defined as 0 —
no crash. The same for a class with no true samples (recall 0) and for F1 when precision and
recall are both 0.

Check your work with:  studyapp exercise check confusion
"""

from __future__ import annotations


def confusion_matrix(y_true: list[str], y_pred: list[str], labels: list[str]) -> list[list[int]]:
    """len(labels) × len(labels) counts; rows = true class, columns = predicted class."""
    # TODO 1: map each label to its index (labels[i] → i), start from a matrix of zeros and add
    # one to matrix[true index][predicted index] for every pair in zip(y_true, y_pred).
    raise NotImplementedError("TODO: count (true, predicted) pairs")


def per_class_metrics(y_true: list[str], y_pred: list[str], labels: list[str]) -> dict[str, dict[str, float]]:
    """{label: {"precision": ..., "recall": ..., "f1": ..., "support": number of true samples}}."""
    # TODO 2: read every class's numbers off confusion_matrix(): the diagonal cell, its column
    # sum (predicted as c) and its row sum (really c). Divide safely: 0 / 0 counts as 0.
    raise NotImplementedError("TODO: precision, recall, F1 and support per class")


def macro_f1(y_true: list[str], y_pred: list[str], labels: list[str]) -> float:
    """The mean of the per-class F1 scores: every class counts the same, however rare."""
    # TODO 3: average the F1 of every label in `labels`. Not the F1 of all samples pooled
    # together ("micro" F1 — for single-label data that is just the accuracy, and it hides a
    # rare class the model never finds).
    raise NotImplementedError("TODO: macro-averaged F1")


def most_confused_pair(y_true: list[str], y_pred: list[str], labels: list[str]) -> tuple[str, str] | None:
    """(true label, predicted label) of the largest OFF-diagonal cell; None when there is no error."""
    # TODO 4: skip the diagonal (those are correct answers). On a tie any of the largest cells
    # is accepted.
    raise NotImplementedError("TODO: the largest off-diagonal cell")
