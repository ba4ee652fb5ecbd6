"""Detect class imbalance, and the metrics that do not fall into the accuracy trap — reference.

imbalance ratio     = max count / min count
normalised entropy  = H / log k
balanced accuracy   = mean per-class recall over the classes in y_true
MCC                 = (c·s − Σ p_k·t_k) / sqrt((s² − Σ p_k²)(s² − Σ t_k²))   (Gorodkin's R_K)
"""

from __future__ import annotations

import math
from collections import Counter

# How much higher than the balanced accuracy the accuracy may be before it misleads.
TRAP_GAP = 0.1


def imbalance_ratio(y: list[str]) -> float:
    """Largest class count / smallest class count, over the classes that occur."""
    counts = Counter(y).values()
    return max(counts) / min(counts)


def normalized_entropy(y: list[str]) -> float:
    """Shannon entropy of the class shares divided by log k (k = classes that occur); 0.0 if k = 1."""
    counts = Counter(y)
    if len(counts) < 2:
        return 0.0
    n = len(y)
    entropy = -sum(count / n * math.log(count / n) for count in counts.values())
    return entropy / math.log(len(counts))


def balanced_accuracy(y_true: list[str], y_pred: list[str]) -> float:
    """The mean recall over the classes that occur in y_true."""
    support = Counter(y_true)
    found = Counter(true for true, predicted in zip(y_true, y_pred, strict=True) if true == predicted)
    recalls = [found[label] / count for label, count in support.items()]
    return sum(recalls) / len(recalls)


def mcc(y_true: list[str], y_pred: list[str]) -> float:
    """Multi-class Matthews correlation coefficient (Gorodkin's R_K)."""
    true_counts = Counter(y_true)
    predicted_counts = Counter(y_pred)
    correct = sum(true == predicted for true, predicted in zip(y_true, y_pred, strict=True))
    samples = len(y_true)
    classes = set(true_counts) | set(predicted_counts)
    numerator = correct * samples - sum(predicted_counts[c] * true_counts[c] for c in classes)
    spread_pred = samples**2 - sum(count**2 for count in predicted_counts.values())
    spread_true = samples**2 - sum(count**2 for count in true_counts.values())
    denominator = math.sqrt(spread_pred * spread_true)
    return numerator / denominator if denominator else 0.0


def accuracy_is_misleading(y_true: list[str], y_pred: list[str]) -> bool:
    """True when the plain accuracy makes this model look much better than it is on its classes."""
    accuracy = sum(t == p for t, p in zip(y_true, y_pred, strict=True)) / len(y_true)
    return accuracy - balanced_accuracy(y_true, y_pred) >= TRAP_GAP
