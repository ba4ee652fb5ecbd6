"""Confusion-matrix error analysis: which classes fail, with which other class, and why.

Rows of the matrix are the TRUE class, columns the PREDICTED class. Cell [i, j] counts samples of
class i predicted as j; the diagonal holds the correct answers, everything off it is an error.

    precision_c = M[c, c] / (column c sum)   of what we called c, how much really was c
    recall_c    = M[c, c] / (row c sum)      of the real c, how much we found
    F1_c        = 2 · precision · recall / (precision + recall)
    error_rate_c = 1 − recall_c              share of class c that was misclassified

A division by zero (a class never predicted, or absent) counts as 0, as scikit-learn does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Synthetic data: four Gaussian blobs in 2-D. D sits close to A, so the model will confuse them.
BLOB_LABELS = ["A", "B", "C", "D"]
BLOB_CENTERS = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0], [1.4, 0.8]])
BLOB_STD = 0.9


@dataclass
class BlobData:
    x_train: np.ndarray
    y_train: np.ndarray  # labels as observed (after label noise)
    x_test: np.ndarray
    y_test: np.ndarray
    clean_train: np.ndarray  # labels before label noise
    clean_test: np.ndarray
    flipped_train: np.ndarray  # boolean masks: which labels were flipped
    flipped_test: np.ndarray
    labels: list[str]


def make_blobs(n_per_class: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    k = len(BLOB_CENTERS)
    y = np.repeat(np.arange(k), n_per_class)
    x = BLOB_CENTERS[y] + rng.normal(0.0, BLOB_STD, size=(len(y), 2))
    order = rng.permutation(len(y))
    return x[order], y[order]


def flip_labels(
    y: np.ndarray, fraction: float, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Replace round(fraction · n) labels, chosen at random, by a DIFFERENT random class.

    Returns the noisy labels and a boolean mask of the flipped positions.
    """
    n = len(y)
    flipped = np.zeros(n, dtype=bool)
    flipped[rng.choice(n, size=round(fraction * n), replace=False)] = True
    noisy = y.copy()
    # adding 1..k-1 modulo k always lands on another class, each equally likely
    noisy[flipped] = (y[flipped] + rng.integers(1, k, size=flipped.sum())) % k
    return noisy, flipped


def make_blob_data(n_per_class: int, label_noise: float, rng: np.random.Generator) -> BlobData:
    """Train and test sets of n_per_class samples per class each; label noise on both."""
    k = len(BLOB_LABELS)
    x, clean = make_blobs(2 * n_per_class, rng)
    noisy, flipped = flip_labels(clean, label_noise, k, rng)
    half = len(x) // 2
    return BlobData(
        x_train=x[:half],
        y_train=noisy[:half],
        x_test=x[half:],
        y_test=noisy[half:],
        clean_train=clean[:half],
        clean_test=clean[half:],
        flipped_train=flipped[:half],
        flipped_test=flipped[half:],
        labels=list(BLOB_LABELS),
    )


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, k: int) -> np.ndarray:
    """k × k counts, rows = true, cols = predicted.

    Each pair (t, p) is turned into the single number k·t + p, so one bincount counts all pairs.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    return np.bincount(k * y_true + y_pred, minlength=k * k).reshape(k, k)


def _ratio(num: float, den: float) -> float:
    return float(num / den) if den else 0.0


def per_class_metrics(matrix: np.ndarray, labels: list[str]) -> dict[str, dict[str, float]]:
    """precision, recall, F1, error rate and support of every class, read off the matrix."""
    out = {}
    for c, label in enumerate(labels):
        tp = matrix[c, c]
        predicted_c = matrix[:, c].sum()
        actual_c = matrix[c, :].sum()
        precision = _ratio(tp, predicted_c)
        recall = _ratio(tp, actual_c)
        f1 = _ratio(2 * precision * recall, precision + recall)
        out[label] = {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "error_rate": 1.0 - recall if actual_c else 0.0,
            "support": int(actual_c),
        }
    return out


def top_confusions(matrix: np.ndarray, labels: list[str], limit: int = 5) -> list[dict]:
    """The largest off-diagonal cells: (true, pred) pairs the model mixes up most often."""
    cells = [
        (int(matrix[i, j]), i, j)
        for i in range(len(labels))
        for j in range(len(labels))
        if i != j and matrix[i, j] > 0
    ]
    cells.sort(key=lambda cell: (-cell[0], cell[1], cell[2]))
    return [{"true": labels[i], "pred": labels[j], "count": count} for count, i, j in cells[:limit]]


def attribute_label_noise(
    y_observed: np.ndarray,
    y_clean: np.ndarray,
    y_pred: np.ndarray,
    flipped: np.ndarray,
    confidence: np.ndarray | None = None,
    threshold: float = 0.9,
) -> dict:
    """Split the errors (prediction ≠ observed label) into label-noise errors and model errors.

    An error on a flipped sample where the model predicted the ORIGINAL clean label is not the
    model's fault: the model was right and the label was wrong. That is an error from label noise.
    Every other error is model confusion.

    In real data nobody tells you which labels are wrong. With `confidence` (the model's
    probability for its own prediction), errors the model is very sure about (≥ threshold) are
    flagged as suspected label errors; the planted flips tell us how good that guess was.
    """
    errors = y_pred != y_observed
    from_noise = errors & flipped & (y_pred == y_clean)
    result = {
        "flipped": int(flipped.sum()),
        "errors": int(errors.sum()),
        "errors_from_label_noise": int(from_noise.sum()),
        "errors_from_model": int((errors & ~from_noise).sum()),
        "observed_accuracy": float(np.mean(~errors)) if len(errors) else 0.0,
        "clean_accuracy": float(np.mean(y_pred == y_clean)) if len(errors) else 0.0,
    }
    if confidence is not None:
        suspects = errors & (confidence >= threshold)
        hits = suspects & flipped
        result["suspects"] = {
            "threshold": threshold,
            "count": int(suspects.sum()),
            "really_flipped": int(hits.sum()),
            "precision": _ratio(hits.sum(), suspects.sum()),
            "recall": _ratio(hits.sum(), flipped.sum()),
        }
    return result
