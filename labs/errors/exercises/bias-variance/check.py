"""Checker of the bias-variance exercise (docs/EXERCISES.md).

The learner's `bias_variance_decomposition()` runs in a child process (`probe()` below is the
driver there: it builds the data, hands the learner a `fit_predict` that records every training
set it receives, and sends back the four numbers). The reference is the lab's own
`labs/errors/bias_variance.py`, run here on the same seeds, so the numbers must agree to rounding.
No timing is involved: the verdict depends only on the seeds, never on how busy the machine is.
"""

from __future__ import annotations

import math
import secrets
import sys
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, learner_function, parse_args, run_learner, say

LEARNER_FILE = "decomposition.py"
FUNCTION = "bias_variance_decomposition"
KEYS = ("expected_error", "bias2", "variance", "noise")
RELATIVE_TOLERANCE = 1e-6
# The identity error = bias² + variance + noise leaves the cross term 2·mean((f̄ − f)(f − y)) of a
# finite test set; its standard deviation is about 2σ·sqrt(bias²/n_test). Allow this many of them.
CROSS_TERM_SIGMAS = 5.0


def planted_cases(quick: bool, seed: int) -> list[dict[str, Any]]:
    """Underfit (degree 1) and overfit (degree 9) always; full settings add degrees 3 and 5."""
    degrees = [1, 9] if quick else [1, 3, 5, 9]
    rounds = 20 if quick else 50
    cases = []
    for i, degree in enumerate(degrees):
        cases.append(
            {
                "degree": degree,
                "n_train": 40 + 7 * i,
                "n_test": 400 if quick else 1000,
                "sigma": 0.3,
                "rounds": rounds,
                "data_seed": seed + 2 * i,
                "bootstrap_seed": seed + 2 * i + 1,
            }
        )
    return cases


# -- in the learner's child process ------------------------------------------------------------------


def probe(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run the learner's function on every case; return its numbers and what fit_predict saw."""
    import numpy as np

    from labs.errors.bias_variance import make_noisy_sine

    function = learner_function(LEARNER_FILE, FUNCTION)
    results = []
    for case in cases:
        data = make_noisy_sine(
            case["n_train"], case["n_test"], case["sigma"], np.random.default_rng(case["data_seed"])
        )
        training_pairs = set(zip(data.x_train.tolist(), data.y_train.tolist(), strict=True))
        calls: list[dict[str, Any]] = []

        fit_predict = _recording_fit_predict(case["degree"], training_pairs, calls)

        value = function(
            fit_predict,
            data.x_train.copy(),
            data.y_train.copy(),
            data.x_test.copy(),
            data.y_test.copy(),
            data.f_test.copy(),
            case["rounds"],
            np.random.default_rng(case["bootstrap_seed"]),
        )
        results.append({"value": _plain_result(value), "calls": calls})
    return results


def _recording_fit_predict(
    degree: int, training_pairs: set[tuple[float, float]], calls: list[dict[str, Any]]
) -> Any:
    """A polynomial fit_predict that notes, for every call, how many rows it got and whether they
    are rows of the training set, and how many of them are distinct."""
    import numpy as np

    from labs.errors.bias_variance import fit_predict_polynomial

    def fit_predict(x: Any, y: Any, x_new: Any) -> Any:
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        pairs = list(zip(x.tolist(), y.tolist(), strict=False))
        calls.append(
            {
                "rows": len(pairs),
                "from_training_set": all(pair in training_pairs for pair in pairs),
                "distinct": len(set(pairs)),
            }
        )
        return fit_predict_polynomial(x, y, degree, np.asarray(x_new, dtype=float))

    return fit_predict


def _plain_result(value: Any) -> Any:
    """The learner's dict as {key: float or a description of what it was}."""
    if not isinstance(value, dict):
        return f"a {type(value).__name__}"
    out: dict[str, Any] = {}
    for key in KEYS:
        if key not in value:
            continue
        try:
            out[key] = float(value[key])
        except (TypeError, ValueError):
            out[key] = f"a {type(value[key]).__name__}"
    return out


# -- in the checker -----------------------------------------------------------------------------------


def reference(case: dict[str, Any]) -> dict[str, float]:
    """The lab's decomposition on the same seeds (plus the two numbers a wrong answer often gives)."""
    import numpy as np

    from labs.errors.bias_variance import bootstrap_predictions, decompose, make_noisy_sine

    data = make_noisy_sine(
        case["n_train"], case["n_test"], case["sigma"], np.random.default_rng(case["data_seed"])
    )
    predictions = bootstrap_predictions(
        data.x_train,
        data.y_train,
        data.x_test,
        case["degree"],
        case["rounds"],
        np.random.default_rng(case["bootstrap_seed"]),
    )
    parts = decompose(predictions, data.y_test, data.f_test, data.sigma)
    noise = float(np.mean((data.y_test - data.f_test) ** 2))
    cross_term_sd = 2 * case["sigma"] * math.sqrt(parts["true_bias2"] / case["n_test"])
    return {
        "expected_error": parts["loss"],
        "bias2": parts["true_bias2"],
        "variance": parts["variance"],
        "noise": noise,
        "bias2_against_labels": parts["bias2"],  # mlxtend's "bias": noise included
        "identity_tolerance": CROSS_TERM_SIGMAS * cross_term_sd + 1e-9,
    }


def close(value: float, expected: float) -> bool:
    return math.isclose(value, expected, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12)


def describe(case: dict[str, Any]) -> str:
    return f"degree {case['degree']}, n={case['n_train']}, R={case['rounds']}"


def check_shape(check: Checker, cases: list[dict[str, Any]], results: list[dict[str, Any]]) -> bool:
    for case, result in zip(cases, results, strict=True):
        value = result["value"]
        if isinstance(value, str):
            return check.requirement(
                "returns the four numbers",
                False,
                say(
                    f"{FUNCTION}() returned {value}; return a dict with {', '.join(KEYS)}",
                    f"{FUNCTION}()의 반환값이 {value.removeprefix('a ')}입니다; "
                    f"{', '.join(KEYS)}를 담은 dict를 반환하세요",
                ),
            )
        missing = [key for key in KEYS if key not in value]
        if missing:
            return check.requirement(
                "returns the four numbers",
                False,
                say(
                    f"the dict has no {', '.join(missing)} ({describe(case)})",
                    f"dict에 다음 키가 없습니다: {', '.join(missing)} ({describe(case)})",
                ),
            )
        odd = [f"{key} is {v}" for key, v in value.items() if isinstance(v, str) or not math.isfinite(v)]
        if odd:
            odd_ko = [
                f"{key}: {v.removeprefix('a ') + ' 값' if isinstance(v, str) else v}"
                for key, v in value.items()
                if isinstance(v, str) or not math.isfinite(v)
            ]
            return check.requirement(
                "returns the four numbers",
                False,
                say(
                    f"{'; '.join(odd)} ({describe(case)})",
                    f"유한한 숫자가 아닙니다 — {'; '.join(odd_ko)} ({describe(case)})",
                ),
            )
    return check.requirement(
        "returns the four numbers",
        True,
        say(
            f"{', '.join(KEYS)} on {len(cases)} cases",
            f"사례 {len(cases)}개 모두에서 {', '.join(KEYS)}를 반환합니다",
        ),
    )


def check_bootstrap(check: Checker, cases: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    name = "fits one model per round on a bootstrap sample"
    for case, result in zip(cases, results, strict=True):
        calls, n = result["calls"], case["n_train"]
        if len(calls) != case["rounds"]:
            check.requirement(
                name,
                False,
                say(
                    f"fit_predict was called {len(calls)} times for R={case['rounds']} rounds",
                    f"R={case['rounds']} round인데 fit_predict가 {len(calls)}번 불렸습니다",
                ),
            )
            return
        for r, call in enumerate(calls):
            if call["rows"] != n:
                check.requirement(
                    name,
                    False,
                    say(
                        f"round {r}: fit on {call['rows']} rows, a bootstrap sample has n={n}",
                        f"round {r}: {call['rows']}개 행으로 맞췄습니다; bootstrap 표본은 n={n}개 행입니다",
                    ),
                )
                return
            if not call["from_training_set"]:
                check.requirement(
                    name,
                    False,
                    say(
                        f"round {r}: some (x, y) rows are not rows of the training set",
                        f"round {r}: 일부 (x, y) 행이 training set의 행이 아닙니다",
                    ),
                )
                return
            if call["distinct"] == n:
                check.requirement(
                    name,
                    False,
                    say(
                        f"round {r}: all {n} rows are different — that is the training set itself (or a "
                        "permutation); a bootstrap sample draws WITH replacement, so rows repeat",
                        f"round {r}: {n}개 행이 모두 다릅니다 — training set 그 자체(또는 순서만 바꾼 것)입니다; "
                        "bootstrap 표본은 복원 추출(WITH replacement)이라 같은 행이 되풀이됩니다",
                    ),
                )
                return
    rounds = cases[0]["rounds"]
    check.requirement(
        name,
        True,
        say(
            f"{rounds} fits per case, each on n rows drawn with replacement",
            f"사례마다 {rounds}번, 매번 복원 추출한 n개 행으로 맞춥니다",
        ),
    )


def check_against_reference(
    check: Checker,
    cases: list[dict[str, Any]],
    results: list[dict[str, Any]],
    references: list[dict[str, float]],
) -> None:
    diagnoses = {
        "variance": lambda mine, ref, case: (
            say(
                f"; that is R/(R − 1) × the reference: divide by R={case['rounds']} (a plain mean), not R − 1",
                f"; 이것은 참고값의 R/(R − 1)배입니다: R − 1이 아니라 R={case['rounds']}로 나누세요 (그냥 평균)",
            )
            if math.isclose(mine, ref["variance"] * case["rounds"] / (case["rounds"] - 1), rel_tol=1e-6)
            else ""
        ),
        "bias2": lambda mine, ref, case: (
            say(
                "; that is mean((f̄ − y)²): compare f̄ with the true function f_test, not the noisy y_test",
                "; 이것은 mean((f̄ − y)²)입니다: f̄를 잡음 섞인 y_test가 아니라 참 함수 f_test와 비교하세요",
            )
            if math.isclose(mine, ref["bias2_against_labels"], rel_tol=1e-6)
            else ""
        ),
    }
    # All three model numbers off while the noise is right: the models themselves differ, which with
    # a correct fit loop means the bootstrap draws are not the reference's.
    model_keys = ("expected_error", "bias2", "variance")
    all_models_differ = all(
        any(not close(r["value"][key], ref[key]) for r, ref in zip(results, references, strict=True))
        for key in model_keys
    ) and all(close(r["value"]["noise"], ref["noise"]) for r, ref in zip(results, references, strict=True))
    draws_hint = say(
        "; every model number differs, so your bootstrap samples are not the reference's: draw "
        "idx = rng.integers(0, n, size=n) once per round, in order, and use rng for nothing else",
        "; 모델 숫자가 모두 다르므로 여러분의 bootstrap 표본이 참고 답안과 다릅니다: round마다 한 번씩 "
        "차례대로 idx = rng.integers(0, n, size=n)을 뽑고, rng는 다른 데 쓰지 마세요",
    )
    for key in KEYS:
        wrong = next(
            (
                (case, result["value"][key], ref)
                for case, result, ref in zip(cases, results, references, strict=True)
                if not close(result["value"][key], ref[key])
            ),
            None,
        )
        if wrong is None:
            shown = ", ".join(f"{ref[key]:.4g}" for ref in references)
            check.requirement(
                f"{key} matches the reference",
                True,
                say(
                    f"{shown} (degrees {', '.join(str(c['degree']) for c in cases)})",
                    f"{shown} (degree {', '.join(str(c['degree']) for c in cases)})",
                ),
            )
            continue
        case, mine, ref = wrong
        hint = diagnoses.get(key, lambda *_: "")(mine, ref, case)
        if not hint and key == "expected_error" and all_models_differ:
            hint = draws_hint
        check.requirement(
            f"{key} matches the reference",
            False,
            say(
                f"{describe(case)}: yours {mine:.6g}, reference {ref[key]:.6g}{hint}",
                f"{describe(case)}: 여러분의 값 {mine:.6g}, 참고값 {ref[key]:.6g}{hint}",
            ),
        )


def check_identity(
    check: Checker,
    cases: list[dict[str, Any]],
    results: list[dict[str, Any]],
    references: list[dict[str, float]],
) -> None:
    worst, worst_share = "", -1.0
    for case, result, ref in zip(cases, results, references, strict=True):
        v = result["value"]
        residual = v["expected_error"] - (v["bias2"] + v["variance"] + v["noise"])
        if abs(residual) > ref["identity_tolerance"]:
            check.requirement(
                "expected_error ≈ bias2 + variance + noise",
                False,
                say(
                    f"{describe(case)}: error − (bias² + variance + noise) = {residual:+.4g}, more than the "
                    f"±{ref['identity_tolerance']:.2g} a finite test set explains",
                    f"{describe(case)}: error − (bias² + variance + noise) = {residual:+.4g}; 유한한 "
                    f"test set으로 설명되는 ±{ref['identity_tolerance']:.2g}보다 큽니다",
                ),
            )
            return
        share = abs(residual) / ref["identity_tolerance"]
        if share >= worst_share:
            worst_share = share
            worst = say(
                f"largest residual {residual:+.2g} (allowed ±{ref['identity_tolerance']:.2g}: the test set's cross term)",
                f"가장 큰 잔차 {residual:+.2g} (허용 ±{ref['identity_tolerance']:.2g}: test set의 cross term)",
            )
    check.requirement("expected_error ≈ bias2 + variance + noise", True, worst)


def main() -> None:
    args = parse_args()
    with Checker(args) as check:
        seed = secrets.randbits(30)
        cases = planted_cases(args.quick, seed)
        degrees = ", ".join(str(c["degree"]) for c in cases)
        check.progress(
            say(
                f"running your {FUNCTION}() on {len(cases)} noisy-sine data sets (seed {seed}): "
                f"polynomial degrees {degrees}",
                f"여러분의 {FUNCTION}()을 noisy-sine 데이터 세트 {len(cases)}개에서 실행합니다 "
                f"(seed {seed}): 다항식 degree {degrees}",
            )
        )
        result = run_learner(args.workspace, Path(__file__).resolve(), "probe", cases, timeout_s=60)
        if not check.require_ran(f"{FUNCTION}() runs", result):
            check.stop()
        results = result.value
        if not check_shape(check, cases, results):
            check.stop()
        check_bootstrap(check, cases, results)
        check.progress(
            say(
                "computing the reference with labs/errors/bias_variance.py on the same seeds",
                "같은 seed로 labs/errors/bias_variance.py의 참고값을 계산합니다",
            )
        )
        references = [reference(case) for case in cases]
        check_against_reference(check, cases, results, references)
        check_identity(check, cases, results, references)


if __name__ == "__main__":
    main()
