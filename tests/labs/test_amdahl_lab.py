"""The amdahl lab: formulas exactly, the simulation closely, the real measurement within wide bounds."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from labs.amdahl import laws
from tests.labs.conftest import run_lab_process

ROOT = Path(__file__).resolve().parents[2]


def run_lab(*args: str, timeout: float = 60) -> tuple[int, list[dict]]:
    """Run the lab as studyapp does and return (exit code, protocol messages)."""
    proc, messages = run_lab_process("amdahl", *args, timeout=timeout)
    return proc.returncode, messages


def result_of(*args: str) -> dict:
    code, messages = run_lab(*args)
    assert code == 0, messages
    assert messages[-1]["type"] == "result"
    assert [m["type"] for m in messages].count("result") == 1
    return messages[-1]["result"]


def check_common(result: dict) -> None:
    for key in (
        "lab",
        "status",
        "summary",
        "tables",
        "findings",
        "plots",
        "mode",
        "serial_fraction",
        "workers",
        "times",
        "speedups",
        "predicted",
        "karp_flatt",
        "fitted_serial",
        "cores",
        "limit",
    ):
        assert key in result, key
    assert result["lab"] == "amdahl" and result["status"] == "ok"
    assert result["findings"] and all(isinstance(f, str) for f in result["findings"])
    plot = result["plots"][0]
    assert set(plot) >= {"title", "x", "series", "xlabel", "ylabel"}
    assert all(len(values) == len(plot["x"]) for values in plot["series"].values())


def check_speedups_from_times(result: dict) -> None:
    times = result["times"]
    for p in result["workers"]:
        assert result["speedups"][str(p)] == pytest.approx(times["1"] / times[str(p)], rel=1e-9)


# --- the formulas, directly ----------------------------------------------------------------------


def test_laws_known_values() -> None:
    assert laws.amdahl_speedup(0.1, 8) == pytest.approx(1 / (0.1 + 0.9 / 8))
    assert laws.amdahl_speedup(0.0, 8) == pytest.approx(8)
    assert laws.amdahl_speedup(1.0, 8) == pytest.approx(1)
    assert laws.amdahl_limit(0.25) == pytest.approx(4)
    assert laws.amdahl_limit(0.0) == math.inf
    assert laws.gustafson_speedup(0.1, 8) == pytest.approx(7.3)
    # the review's example: s = 0.1 on one worker is s' ≈ 0.47 on eight, and then both laws agree
    assert laws.serial_share_on_p(0.1, 8) == pytest.approx(0.4706, abs=1e-4)
    assert laws.gustafson_speedup(laws.serial_share_on_p(0.1, 8), 8) == pytest.approx(
        laws.amdahl_speedup(0.1, 8)
    )
    assert laws.efficiency(4.0, 8) == pytest.approx(0.5)
    assert laws.karp_flatt(5.5, 8) == pytest.approx((1 / 5.5 - 1 / 8) / (1 - 1 / 8))
    with pytest.raises(ValueError):
        laws.karp_flatt(1.0, 1)


@pytest.mark.parametrize("s", [0.0, 0.05, 0.2, 0.5])
def test_karp_flatt_inverts_amdahl_and_fit_recovers_s(s: float) -> None:
    for p in (2, 4, 16):
        assert laws.karp_flatt(laws.amdahl_speedup(s, p), p) == pytest.approx(s, abs=1e-12)
    points = [(p, 1 / laws.amdahl_speedup(s, p)) for p in (1, 2, 4, 8)]
    assert laws.fit_serial_fraction(points) == pytest.approx(s, abs=1e-12)
    assert laws.fit_serial_fraction([(1, 1.0)]) is None


# --- the lab, run for real --------------------------------------------------------------------


@pytest.mark.slow
def test_calc_mode_is_the_formula() -> None:
    result = result_of("--mode", "calc", "--serial", "0.1", "--workers", "1,2,8,16")
    check_common(result)
    assert result["mode"] == "calc" and result["workers"] == [1, 2, 8, 16]
    for p in (1, 2, 8, 16):
        assert result["predicted"][str(p)] == pytest.approx(1 / (0.1 + 0.9 / p), rel=1e-12)
        assert result["gustafson"][str(p)] == pytest.approx(p - 0.1 * (p - 1), rel=1e-12)
        assert result["efficiencies"][str(p)] == pytest.approx(1 / (0.1 + 0.9 / p) / p, rel=1e-12)
        # one program, one speedup: Gustafson with the p-worker run's serial share equals Amdahl
        share = result["serial_share_on_p"][str(p)]
        serial_time, parallel_time = 0.1, 0.9 / p  # the p-worker run of the same program
        assert share == pytest.approx(serial_time / (serial_time + parallel_time), rel=1e-12)
        assert result["gustafson_same_program"][str(p)] == pytest.approx(
            result["predicted"][str(p)], rel=1e-12
        )
    assert result["limit"] == pytest.approx(10)


@pytest.mark.slow
def test_calc_mode_karp_flatt() -> None:
    result = result_of("--mode", "calc", "--speedup", "5.5", "--at", "8")
    assert result["karp_flatt"]["8"] == pytest.approx((1 / 5.5 - 1 / 8) / (1 - 1 / 8), rel=1e-12)
    assert result["serial_fraction"] == pytest.approx(result["karp_flatt"]["8"])
    assert result["limit"] == pytest.approx(1 / result["karp_flatt"]["8"])


@pytest.mark.slow
def test_simulate_mode_follows_the_law() -> None:
    result = result_of("--mode", "simulate", "--quick", "--serial", "0.2")
    check_common(result)
    check_speedups_from_times(result)
    assert result["workers"][0] == 1 and len(result["workers"]) >= 3
    for p in result["workers"]:
        expected = 1 / (0.2 + 0.8 / p)
        assert result["predicted"][str(p)] == pytest.approx(expected, rel=1e-12)
        assert result["speedups"][str(p)] == pytest.approx(expected, rel=0.05)
    assert set(result["karp_flatt"]) == {str(p) for p in result["workers"] if p >= 2}
    for e in result["karp_flatt"].values():
        assert e == pytest.approx(0.2, abs=0.02)
    assert result["fitted_serial"] == pytest.approx(0.2, abs=0.02)
    assert result["limit"] == pytest.approx(5)


@pytest.mark.slow
def test_measure_mode_on_real_processes(tmp_path: Path) -> None:
    # A 1-second job (not quick's 0.3 s): process hand-offs and scheduler noise on a 2-core VM are
    # tens of milliseconds, which would swamp a shorter job's parallel part.
    result = result_of("--quick", "--seconds", "1.0", "--repeats", "3", "--out", str(tmp_path / "run"))
    check_common(result)
    check_speedups_from_times(result)
    assert result["mode"] == "measure"
    cores = result["cores"]
    assert cores >= 1
    for p in result["workers"]:
        p_eff = min(p, cores)
        assert result["predicted"][str(p)] == pytest.approx(1 / (0.2 + 0.8 / p_eff), rel=1e-12)
        assert result["speedups"][str(p)] <= cores * 1.1
    assert set(result["worker_slowdown"]) == {str(p) for p in result["workers"]}
    if cores >= 2:
        assert 2 in result["workers"]
        best, slowdown = result["speedups"]["2"], result["worker_slowdown"]["2"]
        for _ in range(2):  # perhaps other programs were using the cores: measure again
            if best > 1.15:
                break
            again = result_of("--quick", "--seconds", "1.0", "--repeats", "3", "--workers", "1,2")
            assert again["speedups"]["2"] <= cores * 1.1
            best = max(best, again["speedups"]["2"])
            slowdown = min(slowdown, again["worker_slowdown"]["2"])
        if best <= 1.15 and slowdown > 1.2:
            # The lab's own diagnostic: each of 2 workers computed its half much slower than one worker
            # computed the whole (idle here: 1.02–1.04; a CI run that failed saw 1.38 with a speedup of
            # 1.04), so the cores were busy with something else (not a lab bug).
            pytest.skip(f"cores busy elsewhere: speedup {best:.2f}, worker slowdown {slowdown:.2f}")
        assert best > 1.15, f"speedup at 2 workers {best:.2f}; worker slowdown {slowdown:.2f}"
    assert Path(result["artifacts"]["table"]).is_file()


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--serial", "1.5"], ["--workers", "0"], ["--workers", "abc"]])
def test_bad_options_exit_2_with_one_line(args: list[str]) -> None:
    code, messages = run_lab(*args)
    assert code == 2
    assert len(messages) == 1
    assert messages[0]["type"] == "error" and messages[0]["kind"] == "usage"
    assert "\n" not in messages[0]["message"]


@pytest.mark.parametrize(
    ("fit", "over", "claim"),
    [(1.9, 1.8, "넘지 못합니다"), (1.9, 1.95, "넘지 못합니다"), (0.94, 1.13, "측정 잡음")],
)
def test_the_core_limit_sentence_fits_its_numbers(fit: float, over: float, claim: str) -> None:
    """m11: "4명의 1.13배는 2명의 0.94배를 넘지 못합니다" contradicted the table above it."""
    from labs.amdahl.lab import core_limit_finding

    sentence = core_limit_finding(2, 2, fit, 4, over)
    assert claim in sentence
    assert f"{over:.2f}배" in sentence and f"{fit:.2f}배" in sentence
    if over > fit * 1.05:
        assert "넘지 못" not in sentence
