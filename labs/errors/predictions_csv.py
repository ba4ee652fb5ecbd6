"""Read a learner's own predictions: a CSV file with a header and a true / predicted label column.

    true,pred            (or y_true,y_pred / label,prediction / target,predicted …,
    cat,cat               or any names given with --true-col / --pred-col)
    dog,cat
    ...

What people export from real models works as it is: an index column (pandas' `to_csv` writes an
unnamed first column) is ignored, labels may be numbers or text, and an optional probability column
(`prob`, `y_score`, `proba`, … or --score-col) for a binary problem adds ROC-AUC, PR-AUC and a
threshold table. With a score column but no predicted-label column, the prediction is
score ≥ 0.5.

Labels are kept as text ("1", "cat", "B-PER"); every problem is reported as one LabUsageError line.
"""

from __future__ import annotations

import csv
import math
import stat
from dataclasses import dataclass
from pathlib import Path

from labs._protocol import LabUsageError

# Header names, tried in this order (case-insensitive), when --true-col / --pred-col are not given.
DEFAULT_TRUE_COLUMNS = (
    "true",
    "y_true",
    "true_label",
    "y_test",
    "label",
    "target",
    "actual",
    "truth",
    "ground_truth",
    "gt",
    "y",
)
DEFAULT_PRED_COLUMNS = (
    "pred",
    "y_pred",
    "prediction",
    "predicted",
    "predictions",
    "pred_label",
    "predicted_label",
    "y_hat",
    "yhat",
)
DEFAULT_SCORE_COLUMNS = (
    "score",
    "y_score",
    "prob",
    "proba",
    "probability",
    "y_prob",
    "y_proba",
    "pred_proba",
    "prob_1",
    "p1",
)
MAX_LABELS = 100  # more distinct labels than this is almost surely a score column, not classes
MAX_FILE_BYTES = 512 * 1024 * 1024  # a predictions file this big is a mistake, not a data set
SCORE_THRESHOLD = 0.5  # predicted label from a score when the file has no label column


@dataclass
class Predictions:
    y_true: list[str]
    y_pred: list[str]
    true_col: str
    pred_col: str  # the predicted-label column, or "score≥0.5" when derived from the score
    labels: list[str]  # every label seen in either column, in a natural order
    scores: list[float] | None = None  # P(positive) per row, when the file has a score column
    score_col: str | None = None
    positive_label: str | None = None  # the class the score is the probability of


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
    header: list[str],
    wanted: str | None,
    defaults: tuple[str, ...],
    option: str,
    path: str,
    required: bool = True,
) -> int | None:
    names = [h.strip().lower() for h in header]
    candidates = (wanted,) if wanted is not None else defaults
    for name in candidates:
        hits = [i for i, h in enumerate(names) if h == name.strip().lower()]
        if len(hits) > 1:
            raise LabUsageError(f"--data {path}: 헤더에 '{name}' 열이 {len(hits)}번 나옵니다")
        if hits:
            return hits[0]
    if not required and wanted is None:
        return None
    shown = " 또는 ".join(f"'{c}'" for c in candidates[:4]) + (" …" if len(candidates) > 4 else "")
    raise LabUsageError(
        f"--data {path}: 헤더 {header}에 {shown} 열이 없습니다 ({option} 옵션으로 열 이름을 지정하세요)"
    )


def _check_regular_file(path: Path, path_text: str) -> None:
    """Refuse what cannot be a CSV before opening it: a FIFO would block, a device never ends."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise LabUsageError(f"--data {path_text}: 파일이 없습니다") from None
    except OSError as exc:
        raise LabUsageError(f"--data {path_text}: 읽을 수 없습니다: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise LabUsageError(f"--data {path_text}: 파일이 아니라 디렉터리입니다")
    if not stat.S_ISREG(info.st_mode):
        kind = "FIFO(이름 있는 파이프)" if stat.S_ISFIFO(info.st_mode) else "장치나 특수 파일"
        raise LabUsageError(f"--data {path_text}: 일반 파일이 아니라 {kind}입니다 — CSV 파일을 주세요")
    if info.st_size > MAX_FILE_BYTES:
        raise LabUsageError(
            f"--data {path_text}: 파일이 {info.st_size / 2**20:.0f} MiB입니다 "
            f"(최대 {MAX_FILE_BYTES // 2**20} MiB) — 예측 CSV가 맞는지 확인하세요"
        )


def _read_text(path: Path, path_text: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LabUsageError(f"--data {path_text}: 읽을 수 없습니다: {exc.strerror}") from None
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise LabUsageError(f"--data {path_text}: UTF-16 파일입니다 — UTF-8 CSV로 저장하세요")
    if b"\x00" in raw:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        raise LabUsageError(
            f"--data {path_text}: {line}번째 줄에 NUL 바이트가 있습니다 — 텍스트 CSV 파일이 아닙니다"
        )
    try:
        # utf-8-sig drops the byte-order mark Excel puts in front of "UTF-8 CSV" files
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        hint = ""
        try:
            raw.decode("cp949")
            hint = " (CP949/EUC-KR로 보입니다: UTF-8로 다시 저장하세요)"
        except UnicodeDecodeError:
            pass
        line = raw[: exc.start].count(b"\n") + 1
        raise LabUsageError(
            f"--data {path_text}: UTF-8 텍스트 CSV 파일이 아닙니다 ({line}번째 줄){hint}"
        ) from None


def _parse_score(text: str, line: int, column: str, path_text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise LabUsageError(
            f"--data {path_text}: {line}번째 줄의 '{column}' 값 '{text[:20]}'이 숫자가 아닙니다"
        ) from None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise LabUsageError(
            f"--data {path_text}: {line}번째 줄의 '{column}' 값 {text[:20]}이 0..1 확률이 아닙니다 "
            "(양성 클래스의 확률을 주세요)"
        )
    return value


def positive_class(labels: list[str], wanted: str | None, path_text: str) -> str:
    """The class a probability column refers to: --pos-label, else the larger of two labels.

    The larger label in natural order is "1" for 0/1, "True" for False/True and "yes" for no/yes —
    scikit-learn's convention for pos_label=1 and for string labels sorted the same way.
    """
    if wanted is not None:
        if wanted not in labels:
            raise LabUsageError(f"--pos-label {wanted}: 라벨 {labels}에 없습니다")
        return wanted
    if len(labels) != 2:
        raise LabUsageError(
            f"--data {path_text}: 확률 열은 이진 분류에만 씁니다 (라벨 {len(labels)}개: {labels[:6]})"
        )
    return labels[-1]


def load_predictions(
    path_text: str,
    true_col: str | None = None,
    pred_col: str | None = None,
    score_col: str | None = None,
    pos_label: str | None = None,
) -> Predictions:
    path = Path(path_text)
    _check_regular_file(path, path_text)
    text = _read_text(path, path_text)
    try:
        rows = [(line, row) for line, row in _numbered_rows(csv.reader(text.splitlines(keepends=True)))]
    except csv.Error as exc:
        raise LabUsageError(f"--data {path_text}: CSV를 읽을 수 없습니다: {exc}") from None

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
    s = _find_column(header, score_col, DEFAULT_SCORE_COLUMNS, "--score-col", path_text, required=False)
    p = _find_column(
        header,
        pred_col,
        DEFAULT_PRED_COLUMNS,
        "--pred-col",
        path_text,
        required=s is None or pred_col is not None,
    )
    assert t is not None
    used = [i for i in (t, p, s) if i is not None]
    if len(set(used)) < len(used):
        raise LabUsageError(f"--data {path_text}: 실제 라벨, 예측 라벨, 확률이 같은 열을 가리킵니다")

    y_true: list[str] = []
    y_pred: list[str] = []
    scores: list[float] = []
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise LabUsageError(
                f"--data {path_text}: {line}번째 줄의 값이 {len(row)}개인데 헤더는 {len(header)}개입니다"
            )
        for index in used:
            if not row[index].strip():
                raise LabUsageError(
                    f"--data {path_text}: {line}번째 줄의 '{header[index]}' 값이 비어 있습니다"
                )
        y_true.append(row[t].strip())
        if p is not None:
            y_pred.append(row[p].strip())
        if s is not None:
            scores.append(_parse_score(row[s].strip(), line, header[s], path_text))

    if len(y_true) < 2:
        raise LabUsageError(f"--data {path_text}: 데이터 행이 {len(y_true)}개입니다 (2개 이상 필요)")
    positive = None
    if s is not None:
        true_labels = sort_labels(set(y_true) | set(y_pred) | ({pos_label} if pos_label else set()))
        positive = positive_class(true_labels, pos_label, path_text)
        if p is None:  # no label column: the prediction is the score against the usual threshold
            negative = next(label for label in true_labels if label != positive)
            y_pred = [positive if score >= SCORE_THRESHOLD else negative for score in scores]
    elif pos_label is not None:
        raise LabUsageError("--pos-label 옵션은 확률 열(--score-col)이 있을 때만 씁니다")
    labels = set(y_true) | set(y_pred)
    if len(labels) > MAX_LABELS:
        raise LabUsageError(
            f"--data {path_text}: 서로 다른 라벨이 {len(labels)}개입니다 (최대 {MAX_LABELS}) — "
            "예측 열에는 확률·점수가 아니라 클래스 라벨이 있어야 합니다 (확률은 --score-col로)"
        )
    return Predictions(
        y_true,
        y_pred,
        header[t],
        header[p] if p is not None else f"{header[s]}≥{SCORE_THRESHOLD}",  # type: ignore[index]
        sort_labels(labels),
        scores=scores if s is not None else None,
        score_col=header[s] if s is not None else None,
        positive_label=positive,
    )


def _numbered_rows(reader):
    """(physical line number, row) for every row that is not blank."""
    for row in reader:
        if row and any(cell.strip() for cell in row):
            yield reader.line_num, row
