"""저장된 pytest-benchmark 실행 두 개를 잡음을 고려해 비교한다 — TODO를 채우세요.

    python compare_runs.py OLD.json NEW.json

OLD.json, NEW.json은 `pytest --benchmark-json=FILE`이 쓴 파일이다. 벤치마크마다 "stats"에 round
시간의 요약(min, q1, median, q3, iqr, max, mean, stddev …)이 들어 있다.

해야 할 일 (README.md의 "계약"을 지키면 규칙은 여러분이 정합니다):
- verdict(old, new): 같은 벤치마크의 두 stats를 보고 "regression" / "improvement" / "unchanged".
  같은 코드를 두 번 재도 시간은 다르게 나온다. "5 % 느려지면 regression" 같은 고정 기준은
  아무것도 바뀌지 않았는데도 경보를 울린다. 각 실행이 스스로 보여 준 **흩어짐**을 쓰세요.
- compare_runs(old, new): 두 실행에 모두 있는 벤치마크마다 verdict를 담은 dict.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REGRESSION, IMPROVEMENT, UNCHANGED = "regression", "improvement", "unchanged"


def load_run(path: str | Path) -> dict[str, Any]:
    """pytest-benchmark JSON 파일 하나를 읽는다."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def by_name(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """fullname("file.py::test_x") -> 그 벤치마크의 stats."""
    return {bench["fullname"]: bench["stats"] for bench in run.get("benchmarks", [])}


def verdict(old: dict[str, Any], new: dict[str, Any]) -> str:
    """같은 벤치마크의 이전(old)·새(new) stats를 비교한다.

    old, new는 {"min": ..., "q1": ..., "median": ..., "q3": ..., "iqr": ..., "mean": ..., ...} (초).
    """
    # TODO: 두 실행의 흩어짐(예: q1..q3 구간)을 보고 판정하세요.
    #   - 흩어짐이 겹치면 그 차이는 잡음: UNCHANGED
    #   - 새 실행이 흩어짐을 넘어 분명히 느리면 REGRESSION, 분명히 빠르면 IMPROVEMENT
    #   - 시간이 0초인 벤치마크(타이머 해상도 미만)도 있습니다: 0으로 나누지 마세요.
    raise NotImplementedError("TODO: verdict(old, new)를 쓰세요")


def compare_runs(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """두 실행에 **모두** 있는 벤치마크마다 verdict. 한쪽에만 있는 것은 비교할 수 없으니 뺀다."""
    # TODO: by_name()으로 두 실행을 fullname -> stats로 바꾸고, 둘 다 있는 이름마다 verdict(...)를.
    raise NotImplementedError("TODO: compare_runs(old, new)를 쓰세요")


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
