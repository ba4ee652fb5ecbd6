"""The formulas of parallel speedup, as plain functions (no numpy, no measuring).

Notation used everywhere in this lab:
    s  serial fraction: the share of the one-worker run time that cannot be parallelised (0..1)
    p  number of workers (processes, threads, cores)
    S  speedup = T(1) / T(p)

Read these next to README.md: each function is one line of maths.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def amdahl_speedup(s: float, p: float) -> float:
    """Amdahl's law (fixed problem size): S = 1 / (s + (1 - s) / p).

    The serial part s takes the same time whatever p is; only the rest is divided by p.
    """
    return 1.0 / (s + (1.0 - s) / p)


def efficiency(speedup: float, p: float) -> float:
    """Parallel efficiency E = S / p: how much of each worker's time was useful (1 = perfect)."""
    return speedup / p


def amdahl_limit(s: float) -> float:
    """The ceiling of Amdahl's law as p grows without bound: S -> 1 / s.

    With s = 0 there is no ceiling (returned as inf; the JSON result shows it as null).
    """
    return math.inf if s == 0 else 1.0 / s


def gustafson_speedup(s: float, p: float) -> float:
    """Gustafson's law (scaled problem size): S = p - s (p - 1).

    Here s is the serial share of the run *on p workers*; the problem grows with p, so the
    parallel part keeps every worker busy and speedup grows almost linearly.
    """
    return p - s * (p - 1.0)


def serial_share_on_p(s1: float, p: float) -> float:
    """The serial share of the run on p workers, for the SAME program whose one-worker share is s1.

    One worker: serial time a, parallel work b, s1 = a / (a + b). On p workers the serial part still
    takes a and the rest b / p, so s_p = a / (a + b/p) = s1 / (s1 + (1 - s1) / p). Gustafson's law
    with s_p gives exactly Amdahl's speedup with s1: one program has one speedup.
    """
    return s1 / (s1 + (1.0 - s1) / p)


def scaled_speedup(s1: float, p: float) -> float:
    """Weak scaling: the parallel work grows p-fold (a + p·b) and runs on p workers in a + b.

    Speedup against one worker doing that bigger problem: (a + p·b) / (a + b) = p - s1 (p - 1). The
    p-worker run of the scaled problem has serial share a / (a + b) = s1, which is why Gustafson's
    formula is usually written with "the serial share measured on the parallel run".
    """
    return gustafson_speedup(s1, p)


def karp_flatt(speedup: float, p: float) -> float:
    """Karp–Flatt metric: the serial fraction implied by a measured speedup on p workers.

        e = (1/S - 1/p) / (1 - 1/p)        (p >= 2)

    It is Amdahl's law solved for s. If e stays flat as p grows, the limit is the serial code;
    if e grows with p, something else grows with p (communication, synchronisation, too few cores).
    """
    if p <= 1:
        raise ValueError("Karp–Flatt needs p >= 2")
    return (1.0 / speedup - 1.0 / p) / (1.0 - 1.0 / p)


def fit_serial_fraction(points: Iterable[tuple[float, float]]) -> float | None:
    """Least-squares estimate of s from measured run-time ratios.

    Each point is (p_eff, T(p) / T(1)). Amdahl's law says
        T(p) / T(1) = s (1 - 1/p_eff) + 1/p_eff
    which is a straight line through the origin in x = 1 - 1/p_eff, y = T(p)/T(1) - 1/p_eff:
        y = s x   ->   s = sum(x y) / sum(x x)
    Using every p at once averages out the noise that makes single Karp–Flatt values jumpy.
    Returns None when no point has p_eff > 1 (nothing was parallel, so s cannot be seen).
    """
    sxy = sxx = 0.0
    for p_eff, ratio in points:
        x = 1.0 - 1.0 / p_eff
        y = ratio - 1.0 / p_eff
        sxy += x * y
        sxx += x * x
    if sxx == 0.0:
        return None
    return sxy / sxx
