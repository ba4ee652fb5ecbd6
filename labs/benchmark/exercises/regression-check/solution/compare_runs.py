"""저장된 pytest-benchmark 실행 두 개를 잡음을 고려해 비교한다 — 참고 답안.

    python compare_runs.py OLD.json NEW.json

OLD.json, NEW.json은 `pytest --benchmark-json=FILE`이 쓴 파일이다. 벤치마크마다 "stats"에 round
시간의 요약(min, q1, median, q3, iqr, max, mean, stddev …)이 들어 있다.

규칙 (잡음을 고려한 판정):
- 한 실행의 흩어짐(band) = [q1, q3]: round 시간의 가운데 절반이 들어 있는 구간. mean이나 max와 달리
  outlier 몇 개(다른 프로그램이 끼어든 round)에 흔들리지 않는다.
- 두 band가 겹치면 두 실행의 차이는 잡음 안에 있다 → unchanged.
- band가 떨어져 있어도 median이 20 % 넘게 달라야 변화로 본다. 한 실행 안의 IQR은 실행과 실행
  **사이**의 흔들림(CPU 주파수, 다른 프로그램)을 다 담지 못하기 때문이다.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REGRESSION, IMPROVEMENT, UNCHANGED = "regression", "improvement", "unchanged"
MIN_EFFECT = 0.20  # 20 %보다 작은 변화는 실행 사이의 흔들림과 구별하지 않는다


def load_run(path: str | Path) -> dict[str, Any]:
    """pytest-benchmark JSON 파일 하나를 읽는다."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def by_name(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """fullname("file.py::test_x") -> 그 벤치마크의 stats."""
    return {bench["fullname"]: bench["stats"] for bench in run.get("benchmarks", [])}


def slower_beyond_noise(slow: dict[str, Any], fast: dict[str, Any]) -> bool:
    """slow의 band가 fast의 band 위쪽에 떨어져 있고, median이 MIN_EFFECT 넘게 크다."""
    bands_apart = slow["q1"] > fast["q3"]
    big_enough = slow["median"] > fast["median"] * (1 + MIN_EFFECT)
    return bands_apart and big_enough  # 곱셈만 쓰므로 0초(타이머 해상도 미만)여도 나누기 오류가 없다


def verdict(old: dict[str, Any], new: dict[str, Any]) -> str:
    """같은 벤치마크의 이전(old)·새(new) stats를 비교한다."""
    if slower_beyond_noise(new, old):
        return REGRESSION
    if slower_beyond_noise(old, new):
        return IMPROVEMENT
    return UNCHANGED


def compare_runs(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """두 실행에 **모두** 있는 벤치마크마다 verdict. 한쪽에만 있는 것은 비교할 수 없으니 뺀다."""
    old_stats, new_stats = by_name(old), by_name(new)
    return {name: verdict(old_stats[name], new_stats[name]) for name in old_stats if name in new_stats}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python compare_runs.py OLD.json NEW.json", file=sys.stderr)
        return 2
    old, new = load_run(argv[0]), load_run(argv[1])
    old_stats, new_stats = by_name(old), by_name(new)
    for name, result in compare_runs(old, new).items():
        ratio = new_stats[name]["median"] / old_stats[name]["median"] if old_stats[name]["median"] else 0.0
        print(f"{result:12} {ratio:6.2f}x  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
