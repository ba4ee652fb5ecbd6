"""Detecting class imbalance, and the metrics that do not fall into the accuracy trap.

On data that is 90 % one class, a "model" that always answers that class scores 90 % accuracy
while finding none of the rest. Metrics that look at every class equally expose it:

    balanced accuracy = mean of the per-class recalls          (majority model: 1/k)
    macro-F1          = mean of the per-class F1 scores
    MCC (Matthews)    = correlation between truth and prediction, −1..1   (majority model: 0)

Multi-class MCC (Gorodkin's R_K, what scikit-learn computes), from the confusion matrix M with
t_k = row sums (true counts), p_k = column sums (predicted counts), c = trace, s = total:

    MCC = (c·s − Σ_k p_k·t_k) / sqrt((s² − Σ_k p_k²) · (s² − Σ_k t_k²))

(defined as 0 when the denominator is 0, e.g. when only one class is ever predicted).

Detecting the imbalance itself: the class counts, the imbalance ratio max/min, and the
normalised entropy H/log k of the class distribution (1 = perfectly balanced, → 0 = one class).
"""

from __future__ import annotations

import math

import numpy as np

from labs.errors.confusion import per_class_metrics

# Synthetic imbalanced data: a defect-detection story, 90 % normal, 8 % warning, 2 % defect.
IMBALANCED_LABELS = ["normal", "warning", "defect"]
IMBALANCED_SHARES = [0.90, 0.08, 0.02]
IMBALANCED_CENTERS = np.array([[0.0, 0.0], [2.2, 0.6], [0.8, 2.2]])


def make_imbalanced_blobs(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n samples whose classes are drawn with IMBALANCED_SHARES (so counts vary a little)."""
    y = rng.choice(len(IMBALANCED_SHARES), size=n, p=IMBALANCED_SHARES)
    x = IMBALANCED_CENTERS[y] + rng.normal(0.0, 0.8, size=(n, 2))
    return x, y


def class_counts(y: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(np.asarray(y, dtype=np.int64), minlength=k)


def imbalance_ratio(counts: np.ndarray) -> float | None:
    """Largest class count / smallest class count, over the classes that occur (1 = balanced)."""
    present = counts[counts > 0]
    return float(present.max() / present.min()) if len(present) else None


def normalized_entropy(counts: np.ndarray) -> float | None:
    """Shannon entropy of the class shares divided by its maximum log k (k = classes that occur).

    1.0 for a perfectly balanced data set, lower the more one class dominates; None for k < 2.
    """
    present = counts[counts > 0].astype(float)
    if len(present) < 2:
        return None
    p = present / present.sum()
    return float(-(p * np.log(p)).sum() / math.log(len(present)))


def accuracy(matrix: np.ndarray) -> float:
    total = matrix.sum()
    return float(np.trace(matrix) / total) if total else 0.0


def balanced_accuracy(matrix: np.ndarray) -> float:
    """Mean recall over the classes that occur in the true labels."""
    support = matrix.sum(axis=1)
    present = support > 0
    recalls = np.diag(matrix)[present] / support[present]
    return float(recalls.mean()) if present.any() else 0.0


def macro_f1(matrix: np.ndarray) -> float:
    """Mean F1 over all classes in the matrix (true or predicted), 0 for a class never found."""
    labels = [str(i) for i in range(len(matrix))]
    f1s = [m["f1"] for m in per_class_metrics(matrix, labels).values()]
    return float(np.mean(f1s)) if f1s else 0.0


def mcc(matrix: np.ndarray) -> float:
    """Multi-class Matthews correlation coefficient (formula in the module docstring)."""
    m = matrix.astype(float)
    t = m.sum(axis=1)  # how often each class is the truth
    p = m.sum(axis=0)  # how often each class is predicted
    c = np.trace(m)
    s = m.sum()
    numerator = c * s - np.dot(p, t)
    denominator = math.sqrt((s * s - np.dot(p, p)) * (s * s - np.dot(t, t)))
    return float(numerator / denominator) if denominator else 0.0


def summary_metrics(matrix: np.ndarray) -> dict[str, float]:
    return {
        "accuracy": accuracy(matrix),
        "balanced_accuracy": balanced_accuracy(matrix),
        "macro_f1": macro_f1(matrix),
        "mcc": mcc(matrix),
    }


def majority_class(y: np.ndarray, k: int) -> int:
    """The most frequent class (the lowest index on a tie)."""
    return int(class_counts(y, k).argmax())
