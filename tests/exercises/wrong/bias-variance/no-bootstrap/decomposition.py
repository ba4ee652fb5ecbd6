"""WRONG on purpose: every round fits on the whole training set (a permutation, no replacement).

    f̄(x)            = mean over r of f_r(x)
    expected error  = mean over r and x of (f_r(x) − y)²
    bias²           = mean over x of (f̄(x) − f(x))²
    variance        = mean over r and x of (f_r(x) − f̄(x))²
    noise           = mean over x of (y − f(x))²

expected error = bias² + variance + noise holds up to the cross term 2·mean((f̄ − f)(f − y)),
which is zero on average and small for a large test set: the noise of a finite test sample is
not exactly uncorrelated with the model's error.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

FitPredict = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def bias_variance_decomposition(
    fit_predict: FitPredict,
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    f_test: np.ndarray,
    rounds: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Return {"expected_error", "bias2", "variance", "noise"} as Python floats."""
    n = len(x_train)
    predictions = np.empty((rounds, len(x_test)))
    for r in range(rounds):
        idx = rng.permutation(n)  # shuffled, but every row exactly once
        predictions[r] = fit_predict(x_train[idx], y_train[idx], x_test)

    average_model = predictions.mean(axis=0)
    return {
        "expected_error": float(np.mean((predictions - y_test) ** 2)),
        "bias2": float(np.mean((average_model - f_test) ** 2)),
        "variance": float(np.mean((predictions - average_model) ** 2)),
        "noise": float(np.mean((y_test - f_test) ** 2)),
    }
