"""Bias-variance decomposition of the squared loss, by bootstrap.

You get ONE training set, ONE test set and a model-fitting callable. Fit the model again and
again, each time on a bootstrap sample of the training set, and split its expected squared error
on the test set into the parts it is made of:

    expected error = bias² + variance + noise

The data are synthetic, so the true function f is known at the test points (`f_test`): the
noisy label is y = f(x) + ε, and that lets you separate the noise from the bias.

Notation (R = rounds, f_r(x) = the prediction of the model fitted in round r):

    f̄(x)            = mean over r of f_r(x)                 the "average model"
    expected error  = mean over r and x of (f_r(x) − y)²
    bias²           = mean over x of (f̄(x) − f(x))²          how far the average model is from the truth
    variance        = mean over r and x of (f_r(x) − f̄(x))²  how much the models disagree
    noise           = mean over x of (y − f(x))²              the irreducible error of this test set

Check your work with:  studyapp exercise check bias-variance
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# fit_predict(x_train, y_train, x_new) fits a model on (x_train, y_train) and returns its
# predictions at x_new. The checker passes polynomial regressions of several degrees.
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
    # TODO 1: n = len(x_train). Make a (rounds × len(x_test)) array of predictions. In every round:
    #   - draw a bootstrap sample: n row indices WITH replacement, exactly as
    #         idx = rng.integers(0, n, size=n)
    #     (the checker repeats your draws with the same seed, so draw once per round, in order,
    #     and use `rng` for nothing else);
    #   - fit on x_train[idx], y_train[idx] and predict every test point.

    # TODO 2: the average model f̄(x): the mean of the predictions over the rounds (axis 0).

    # TODO 3: the four numbers of the module docstring. Every mean is a plain mean: the variance
    # averages over the R rounds you actually have, it does not estimate a population (no R − 1).
    # bias² compares f̄ with the TRUE function f_test, not with the noisy y_test — otherwise the
    # noise would be counted twice (once in bias², once in noise).

    raise NotImplementedError("TODO: bootstrap predictions, then expected_error, bias2, variance, noise")
