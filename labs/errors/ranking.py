"""Threshold-free quality of a probability column: ROC-AUC, PR-AUC and a threshold table.

A binary classifier that outputs P(positive) is judged twice: its labels at one threshold (the
confusion matrix) and the scores themselves, over every threshold at once.

    ROC-AUC  = P(a random positive scores higher than a random negative), ties count 1/2
               (the Mann–Whitney U statistic divided by n_pos · n_neg); 0.5 = chance.
    PR-AUC   = average precision, AP = Σ_n (R_n − R_{n−1}) · P_n over the distinct thresholds,
               high to low (scikit-learn's `average_precision_score`); chance = the positive share.

On imbalanced data ROC-AUC can look good while precision is poor, because the many negatives make
the false-positive *rate* small even when false positives outnumber true positives; PR-AUC shows it.
"""

from __future__ import annotations

import numpy as np


def roc_auc(y_positive: np.ndarray, scores: np.ndarray) -> float | None:
    """ROC-AUC from ranks (average ranks for ties); None when only one class is present."""
    y = np.asarray(y_positive, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(scores, kind="mergesort")
    sorted_scores = np.asarray(scores)[order]
    ranks = np.empty(len(scores))
    start = 0
    while start < len(sorted_scores):  # average rank over each run of tied scores
        end = start
        while end + 1 < len(sorted_scores) and sorted_scores[end + 1] == sorted_scores[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def precision_recall_points(y_positive: np.ndarray, scores: np.ndarray) -> list[dict[str, float]]:
    """Precision and recall at every distinct score used as the threshold (score ≥ t), high to low."""
    y = np.asarray(y_positive, dtype=bool)
    s = np.asarray(scores, dtype=float)
    n_pos = int(y.sum())
    points = []
    for threshold in np.unique(s)[::-1]:
        predicted = s >= threshold
        tp = int((predicted & y).sum())
        fp = int((predicted & ~y).sum())
        points.append(
            {
                "threshold": float(threshold),
                "precision": tp / (tp + fp),
                "recall": tp / n_pos if n_pos else 0.0,
            }
        )
    return points


def average_precision(y_positive: np.ndarray, scores: np.ndarray) -> float | None:
    """AP = Σ (R_n − R_{n−1}) P_n; None without positives (recall is undefined)."""
    if not np.asarray(y_positive, dtype=bool).any():
        return None
    ap, previous_recall = 0.0, 0.0
    for point in precision_recall_points(y_positive, scores):
        ap += (point["recall"] - previous_recall) * point["precision"]
        previous_recall = point["recall"]
    return float(ap)


def threshold_table(
    y_positive: np.ndarray, scores: np.ndarray, thresholds: tuple[float, ...] = (0.1, 0.3, 0.5, 0.7, 0.9)
) -> list[dict[str, float | int | None]]:
    """What predicting positive at score ≥ t would give, for a few thresholds t."""
    y = np.asarray(y_positive, dtype=bool)
    s = np.asarray(scores, dtype=float)
    rows: list[dict[str, float | int | None]] = []
    for t in thresholds:
        predicted = s >= t
        tp = int((predicted & y).sum())
        fp = int((predicted & ~y).sum())
        fn = int((~predicted & y).sum())
        tn = int((~predicted & ~y).sum())
        precision = tp / (tp + fp) if tp + fp else None  # undefined when nothing is predicted positive
        recall = tp / (tp + fn) if tp + fn else None
        f1 = (
            2 * precision * recall / (precision + recall)
            if precision is not None and recall is not None and precision + recall
            else 0.0
        )
        rows.append(
            {
                "threshold": t,
                "predicted_positive": tp + fp,
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "tn": tn,
                "precision": precision,
                "recall": recall,
                "f1": f1,
                "fpr": fp / (fp + tn) if fp + tn else None,
            }
        )
    return rows
