"""The explain-it words shared by `studyapp explain --plain` and the TUI's explain screen."""

from __future__ import annotations

STRINGS = {
    "ko": {
        "explain.none": "설명하기 문제가 없습니다 (content/explain.yaml).",
        "explain.unknown": "알 수 없는 설명하기 문제 '{wanted}'. 가능한 것: {choices}",
        "explain.header": "설명하기 [{id}] · 체크리스트 {number}. {text}",
        "explain.write": "답을 여러 줄로 쓰세요. 빈 줄이나 '.'만 있는 줄로 끝냅니다.",
        "explain.empty": "답이 비어 있어 기록하지 않았습니다.",
        "explain.model": "모범 답안:",
        "explain.points": "핵심 포인트 — 내 답에 들어 있으면 y, 없으면 n:",
        "explain.ask": "  [{n}/{total}] {point} (y/n) > ",
        "explain.yn": "  y 또는 n으로 답하세요.",
        "explain.saved": "저장함: 핵심 포인트 {covered}/{total} ({percent}) · {date}",
        "explain.stopped": "끝까지 답하지 않아 기록하지 않았습니다.",
        "explain.list_row": "{id:<34} 체크리스트 {number:>2} · 최근 {latest}",
        "explain.never": "아직 없음",
    },
    "en": {
        "explain.none": "No explain-it prompts (content/explain.yaml).",
        "explain.unknown": "unknown explain-it prompt '{wanted}'. Choices: {choices}",
        "explain.header": "Explain it [{id}] · checklist {number}. {text}",
        "explain.write": "Write your answer over several lines. End with an empty line or a line with only '.'.",
        "explain.empty": "The answer is empty: nothing was recorded.",
        "explain.model": "Model answer:",
        "explain.points": "Key points — y if your answer covered it, n if not:",
        "explain.ask": "  [{n}/{total}] {point} (y/n) > ",
        "explain.yn": "  Answer y or n.",
        "explain.saved": "Saved: key points {covered}/{total} ({percent}) · {date}",
        "explain.stopped": "Stopped before the end: nothing was recorded.",
        "explain.list_row": "{id:<34} checklist {number:>2} · latest {latest}",
        "explain.never": "none yet",
    },
}
