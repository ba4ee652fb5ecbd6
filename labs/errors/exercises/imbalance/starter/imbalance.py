"""Detect class imbalance, and the metrics that do not fall into the accuracy trap.

On data that is 90 % one class, a "model" that always answers that class scores 90 % accuracy
while it finds none of the other classes. Two questions, two kinds of numbers:

1. Is the DATA imbalanced?  (labels only)
       imbalance ratio     = largest class count / smallest class count   (1 = balanced)
       normalised entropy  = H / log k,  H = −Σ p_c log p_c over the k classes that occur
                             (1 = balanced, → 0 as one class takes over; 0 when k = 1)

2. Is the MODEL any good on every class?  (labels and predictions)
       balanced accuracy   = mean of the per-class recalls, over the classes in y_true
       MCC (Matthews)      = correlation of truth and prediction, −1..1, 0 = no better than chance.
       Multi-class form, from the confusion matrix M (rows = true, columns = predicted):
           t_k = row sums, p_k = column sums, c = trace, s = total
           MCC = (c·s − Σ_k p_k·t_k) / sqrt((s² − Σ_k p_k²) · (s² − Σ_k t_k²))    (0 if the root is 0)

For the MCC the classes are the labels that occur in y_true or y_pred; for the balanced accuracy
only those in y_true (a label that is only predicted has no recall). Their order does not matter.

Check your work with:  studyapp exercise check imbalance
"""

from __future__ import annotations

# The tools you need, imported for you (noqa: they are unused until you write the TODOs).
import math  # noqa: F401
from collections import Counter  # noqa: F401


def imbalance_ratio(y: list[str]) -> float:
    """Largest class count / smallest class count, over the classes that occur."""
    # TODO 1: Counter(y) gives the count of every class.
    raise NotImplementedError("TODO: max count / min count")


def normalized_entropy(y: list[str]) -> float:
    """Shannon entropy of the class shares divided by log k (k = classes that occur); 0.0 if k = 1."""
    # TODO 2: shares p_c = count / n; H = −Σ p_c · log(p_c) (math.log); divide by math.log(k).
    raise NotImplementedError("TODO: H / log k")


def balanced_accuracy(y_true: list[str], y_pred: list[str]) -> float:
    """The mean recall over the classes that occur in y_true."""
    # TODO 3: recall of class c = (samples of c predicted as c) / (samples of c). Average them
    # with equal weight. (The plain accuracy weights every SAMPLE equally instead — which is
    # exactly what the trivial majority classifier exploits.)
    raise NotImplementedError("TODO: mean per-class recall")


def mcc(y_true: list[str], y_pred: list[str]) -> float:
    """Multi-class Matthews correlation coefficient (formula in the module docstring)."""
    # TODO 4: t_k, p_k can come from Counter(y_true), Counter(y_pred); c = number of correct
    # answers; s = number of samples. Return 0.0 when the denominator is 0 (e.g. a model that
    # always answers the same class).
    raise NotImplementedError("TODO: Gorodkin's multi-class MCC")


def accuracy_is_misleading(y_true: list[str], y_pred: list[str]) -> bool:
    """True when the plain accuracy makes this model look much better than it is on its classes."""
    # TODO 5: decide with the numbers above. Imbalance alone is not the trap: a model that finds
    # every class is fine on imbalanced data. The trap is a high accuracy that a per-class
    # metric does not confirm — e.g. accuracy at least 0.1 above the balanced accuracy.
    raise NotImplementedError("TODO: spot the accuracy trap")
