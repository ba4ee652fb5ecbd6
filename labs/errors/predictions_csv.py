"""Read a learner's own predictions: a CSV file with a header and a true / predicted label column.

    true,pred            (or y_true,y_pred, or any names given with --true-col / --pred-col)
    cat,cat
    dog,cat
    ...

Labels are kept as text ("1", "cat", "B-PER"); every problem is reported as one LabUsageError line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from labs._protocol import LabUsageError

DEFAULT_TRUE_COLUMNS = ("true", "y_true")
DEFAULT_PRED_COLUMNS = ("pred", "y_pred")
MAX_LABELS = 100  # more distinct labels than this is almost surely a score column, not classes


@dataclass
class Predictions:
    y_true: list[str]
    y_pred: list[str]
    true_col: str
    pred_col: str
    labels: list[str]  # every label seen in either column, in a natural order


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def sort_labels(labels: set[str]) -> list[str]:
    """Numbers in numeric order ("2" before "10"), anything else alphabetically."""
    if all(_is_number(label) for label in labels):
        return sorted(labels, key=lambda label: (float(label), label))
    return sorted(labels)


def _find_column(
    header: list[str], wanted: str | None, defaults: tuple[str, ...], option: str, path: str
) -> int:
    names = [h.strip().lower() for h in header]
    candidates = (wanted,) if wanted is not None else defaults
    for name in candidates:
        hits = [i for i, h in enumerate(names) if h == name.strip().lower()]
        if len(hits) > 1:
            raise LabUsageError(f"--data {path}: 헤더에 '{name}' 열이 {len(hits)}번 나옵니다")
        if hits:
            return hits[0]
    shown = " 또는 ".join(f"'{c}'" for c in candidates)
    raise LabUsageError(
        f"--data {path}: 헤더 {header}에 {shown} 열이 없습니다 ({option} 옵션으로 열 이름을 지정하세요)"
    )


def load_predictions(path_text: str, true_col: str | None = None, pred_col: str | None = None) -> Predictions:
    path = Path(path_text)
    if not path.exists():
        raise LabUsageError(f"--data {path_text}: 파일이 없습니다")
    if path.is_dir():
        raise LabUsageError(f"--data {path_text}: 파일이 아니라 디렉터리입니다")
    try:
        # utf-8-sig drops the byte-order mark Excel puts in front of "UTF-8 CSV" files
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = [(line, row) for line, row in _numbered_rows(csv.reader(handle))]
    except UnicodeDecodeError:
        raise LabUsageError(f"--data {path_text}: UTF-8 텍스트 CSV 파일이 아닙니다") from None
    except csv.Error as exc:
        raise LabUsageError(f"--data {path_text}: CSV를 읽을 수 없습니다: {exc}") from None
    except OSError as exc:
        raise LabUsageError(f"--data {path_text}: 읽을 수 없습니다: {exc.strerror}") from None

    if not rows:
        raise LabUsageError(f"--data {path_text}: 빈 파일입니다 (헤더와 2개 이상의 행이 필요합니다)")
    _, header = rows[0]
    header = [h.strip() for h in header]
    if all(_is_number(h) for h in header if h) or not any(header):
        raise LabUsageError(
            f"--data {path_text}: 첫 줄이 헤더가 아닙니다 {header} "
            "(첫 줄에 열 이름을 적으세요, 예: true,pred)"
        )
    t = _find_column(header, true_col, DEFAULT_TRUE_COLUMNS, "--true-col", path_text)
    p = _find_column(header, pred_col, DEFAULT_PRED_COLUMNS, "--pred-col", path_text)
    if t == p:
        raise LabUsageError(f"--data {path_text}: 실제 라벨과 예측 라벨이 같은 열 '{header[t]}'입니다")

    y_true: list[str] = []
    y_pred: list[str] = []
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise LabUsageError(
                f"--data {path_text}: {line}번째 줄의 값이 {len(row)}개인데 헤더는 {len(header)}개입니다"
            )
        true_value, pred_value = row[t].strip(), row[p].strip()
        if not true_value or not pred_value:
            column = header[t] if not true_value else header[p]
            raise LabUsageError(f"--data {path_text}: {line}번째 줄의 '{column}' 값이 비어 있습니다")
        y_true.append(true_value)
        y_pred.append(pred_value)

    if len(y_true) < 2:
        raise LabUsageError(f"--data {path_text}: 데이터 행이 {len(y_true)}개입니다 (2개 이상 필요)")
    labels = set(y_true) | set(y_pred)
    if len(labels) > MAX_LABELS:
        raise LabUsageError(
            f"--data {path_text}: 서로 다른 라벨이 {len(labels)}개입니다 (최대 {MAX_LABELS}) — "
            "예측 열에는 확률·점수가 아니라 클래스 라벨이 있어야 합니다"
        )
    return Predictions(y_true, y_pred, header[t], header[p], sort_labels(labels))


def _numbered_rows(reader):
    """(physical line number, row) for every row that is not blank."""
    for row in reader:
        if row and any(cell.strip() for cell in row):
            yield reader.line_num, row
