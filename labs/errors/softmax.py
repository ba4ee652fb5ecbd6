"""A small classifier written with numpy: softmax (multinomial logistic) regression.

Enough of a model to make realistic mistakes on 2-D data, small enough to read in one go.
Trained by full-batch gradient descent on the (optionally class-weighted) cross-entropy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SoftmaxModel:
    mean: np.ndarray  # feature means of the training set (inputs are standardised with them)
    std: np.ndarray
    weights: np.ndarray  # (features + 1, classes); the last row is the bias

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        return softmax(_design(x, self.mean, self.std) @ self.weights)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.predict_proba(x).argmax(axis=1)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)  # subtract the max: same result, no overflow
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _design(x: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    z = (x - mean) / std
    return np.hstack([z, np.ones((len(z), 1))])  # a column of ones carries the bias


def balanced_class_weights(y: np.ndarray, k: int) -> np.ndarray:
    """Weight n / (k · n_c) per class c, so each class contributes equally to the loss
    (the rule scikit-learn calls class_weight="balanced")."""
    counts = np.bincount(y, minlength=k).astype(float)
    return np.where(counts > 0, len(y) / (k * np.maximum(counts, 1)), 0.0)


def train_softmax(
    x: np.ndarray,
    y: np.ndarray,
    k: int,
    *,
    class_weight: np.ndarray | None = None,
    steps: int = 300,
    lr: float = 0.5,
    l2: float = 1e-3,
) -> SoftmaxModel:
    """Fit softmax regression on features x (n, d) and integer labels y in [0, k)."""
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-12
    design = _design(x, mean, std)
    onehot = np.eye(k)[y]
    sample_weight = np.ones(len(y)) if class_weight is None else class_weight[y]
    sample_weight = sample_weight / sample_weight.sum()
    weights = np.zeros((design.shape[1], k))
    for _ in range(steps):
        probs = softmax(design @ weights)
        # gradient of the weighted mean cross-entropy + a little L2 to keep weights finite
        grad = design.T @ ((probs - onehot) * sample_weight[:, None]) + l2 * weights
        weights -= lr * grad
    return SoftmaxModel(mean, std, weights)
