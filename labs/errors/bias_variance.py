"""Bias-variance decomposition for squared loss, by bootstrap.

This is the method of mlxtend's `bias_variance_decomp`, written out with numpy so every step is
visible:

1. Keep ONE training set and ONE test set.
2. Repeat R times: draw a bootstrap sample of the training set (n rows drawn with replacement),
   fit the model on it, predict every test point. That gives R predictions f_r(x) per test point.
3. Average over the rounds and the test points:

       expected loss  = mean_r,x (f_r(x) - y)^2
       bias^2         = mean_x   (f̄(x) - y)^2        f̄(x) = mean_r f_r(x)   (mlxtend calls it "bias")
       variance       = mean_r,x (f_r(x) - f̄(x))^2

   For squared loss, loss = bias^2 + variance holds EXACTLY (up to floating-point rounding),
   because at every test point the cross term mean_r (f_r - f̄) is zero by the definition of f̄.

mlxtend's bias^2 is measured against the noisy label y, so it still contains the noise. Here the
data are synthetic and the true function f is known, so we can split it further:

       (f̄ - y)^2  ≈  (f̄ - f)^2  +  σ^2        →   loss ≈ true bias^2 + variance + σ^2

This second identity holds only on average (the test noise is one finite sample), so its residual
is small but not zero. σ^2 is the irreducible error: no model can go below it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np


def true_function(x: np.ndarray) -> np.ndarray:
    """The function the models try to learn: one period of a sine on [0, 1]."""
    return np.sin(2 * np.pi * x)


@dataclass
class SineData:
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray  # noisy labels the loss is measured against
    f_test: np.ndarray  # the true function at the test points (noise-free)
    sigma: float  # noise standard deviation; the noise variance σ² is the irreducible error


def make_noisy_sine(n_train: int, n_test: int, sigma: float, rng: np.random.Generator) -> SineData:
    """y = sin(2πx) + N(0, σ²), x uniform on [0, 1]."""
    x_train = rng.uniform(0.0, 1.0, n_train)
    y_train = true_function(x_train) + rng.normal(0.0, sigma, n_train)
    x_test = rng.uniform(0.0, 1.0, n_test)
    f_test = true_function(x_test)
    y_test = f_test + rng.normal(0.0, sigma, n_test)
    return SineData(x_train, y_train, x_test, y_test, f_test, sigma)


def fit_predict_polynomial(x: np.ndarray, y: np.ndarray, degree: int, x_new: np.ndarray) -> np.ndarray:
    """Least-squares polynomial of `degree` fitted on (x, y), evaluated at x_new.

    `Polynomial.fit` maps x onto [-1, 1] before solving, which keeps high degrees numerically sane.
    """
    with warnings.catch_warnings():
        # A bootstrap sample repeats points, so a degree-12 fit can be poorly conditioned; numpy
        # then warns (RankWarning). The fit is still the least-squares answer, and its wild
        # swings are exactly the variance this lab measures, so the warning is silenced.
        warnings.simplefilter("ignore")
        poly = np.polynomial.Polynomial.fit(x, y, degree)
    return poly(x_new)


def bootstrap_predictions(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    degree: int,
    rounds: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Predictions of `rounds` models, each fitted on a bootstrap sample: shape (rounds, n_test)."""
    n = len(x_train)
    predictions = np.empty((rounds, len(x_test)))
    for r in range(rounds):
        idx = rng.integers(0, n, size=n)  # n draws with replacement = one bootstrap sample
        predictions[r] = fit_predict_polynomial(x_train[idx], y_train[idx], degree, x_test)
    return predictions


def fresh_sample_predictions(
    n_train: int,
    sigma: float,
    x_test: np.ndarray,
    degree: int,
    rounds: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Predictions of `rounds` models, each fitted on a NEW training set drawn from the true
    distribution (x ~ U(0, 1), y = f(x) + noise): the textbook expectation over training sets.

    Only possible because the data are synthetic. Bootstrapping one fixed training set instead
    keeps that set's particular noise in every resample, so f̄ follows it and the measured bias²
    of a flexible model includes the noise it memorised — which is why the bootstrap bias² can
    grow with the degree while this one falls.
    """
    predictions = np.empty((rounds, len(x_test)))
    for r in range(rounds):
        x = rng.uniform(0.0, 1.0, n_train)
        y = true_function(x) + rng.normal(0.0, sigma, n_train)
        predictions[r] = fit_predict_polynomial(x, y, degree, x_test)
    return predictions


def decompose(
    predictions: np.ndarray,
    y_test: np.ndarray,
    f_test: np.ndarray | None = None,
    sigma: float | None = None,
) -> dict[str, float]:
    """Split the expected squared loss of `predictions` (rounds × test points) into its parts.

    Returns loss, bias2 (mlxtend's "bias": includes noise), variance and identity_residual
    (loss − bias2 − variance, ~1e-16). With the true function values `f_test` and the noise `sigma`
    it adds true_bias2 = mean((f̄ − f)²), noise = σ² and noise_residual = loss − (true_bias2 +
    variance + σ²).
    """
    mean_prediction = predictions.mean(axis=0)  # f̄(x): the "average model"
    loss = float(np.mean((predictions - y_test) ** 2))
    bias2 = float(np.mean((mean_prediction - y_test) ** 2))
    variance = float(np.mean((predictions - mean_prediction) ** 2))
    parts = {
        "loss": loss,
        "bias2": bias2,
        "variance": variance,
        "identity_residual": loss - (bias2 + variance),
    }
    if f_test is not None and sigma is not None:
        true_bias2 = float(np.mean((mean_prediction - f_test) ** 2))
        noise = float(sigma) ** 2
        parts.update(
            true_bias2=true_bias2,
            noise=noise,
            noise_residual=loss - (true_bias2 + variance + noise),
        )
    return parts


def bias_variance_sweep(
    data: SineData,
    degrees: list[int],
    rounds: int,
    rng: np.random.Generator,
    on_degree=None,
) -> list[dict[str, float]]:
    """decompose() for each polynomial degree; one row per degree, in the order given."""
    rows = []
    for i, degree in enumerate(degrees):
        predictions = bootstrap_predictions(data.x_train, data.y_train, data.x_test, degree, rounds, rng)
        row = {"degree": degree, **decompose(predictions, data.y_test, data.f_test, data.sigma)}
        fresh = fresh_sample_predictions(len(data.x_train), data.sigma, data.x_test, degree, rounds, rng)
        fresh_parts = decompose(fresh, data.y_test, data.f_test, data.sigma)
        row["fresh_true_bias2"] = fresh_parts["true_bias2"]
        row["fresh_variance"] = fresh_parts["variance"]
        rows.append(row)
        if on_degree is not None:
            on_degree(i, degree)
    return rows


def classify_fits(rows: list[dict[str, float]]) -> dict[str, int | None]:
    """Pick the under-fitting, over-fitting and best degree from the measured numbers.

    - best: the lowest expected loss.
    - underfit: among the degrees simpler than the best whose error is bias-dominated
      (true bias² > variance), the one with the highest true bias².
    - overfit: among the degrees more complex than the best whose error is variance-dominated
      (variance > true bias²), the one where variance is the largest share of the loss.
    A role no degree fits stays None (e.g. `--degrees 9,12` has nothing bias-dominated).
    Uses true_bias2 when present (synthetic data), otherwise mlxtend's bias2.
    """
    if not rows:
        return {"best": None, "underfit": None, "overfit": None}

    def bias_of(row: dict[str, float]) -> float:
        return row.get("true_bias2", row["bias2"])

    best = min(rows, key=lambda r: r["loss"])
    simpler = [r for r in rows if r["degree"] < best["degree"]]
    more_complex = [r for r in rows if r["degree"] > best["degree"]]
    bias_dominated = [r for r in simpler if bias_of(r) > r["variance"]]
    variance_dominated = [r for r in more_complex if r["variance"] > bias_of(r)]
    underfit = max(bias_dominated, key=bias_of, default=None)
    overfit = max(variance_dominated, key=lambda r: r["variance"] / r["loss"], default=None)
    return {
        "best": int(best["degree"]),
        "underfit": None if underfit is None else int(underfit["degree"]),
        "overfit": None if overfit is None else int(overfit["degree"]),
    }
