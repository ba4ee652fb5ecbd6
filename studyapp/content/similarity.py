"""Near-duplicate O/X statements: found by `studyapp check`, kept apart in 4-choice questions.

Two items that state the same fact waste a slot (the second answer is free under spaced
repetition) and, side by side in a 4-choice question, give the key away. The reviews of the bank
found about two dozen such slots; this module catches the next one.

How two statements are compared (all plain Python; ~300 items take a few milliseconds):
1. Normalise: NFKC, lower case, punctuation and spaces dropped, and a trailing Korean particle
   (은/는/이/가/을/를/…) cut off each word, so `프로파일러는` and `프로파일러가` agree.
2. Character 2- and 3-grams of the normalised text, weighted TF-IDF over the whole bank: an
   n-gram that half the bank shares (`성능분석`, `pytorch`) says little; a rare one says a lot.
3. Cosine similarity, computed through an inverted index (only pairs that share an n-gram).
4. A different set of numbers makes a different question: the calculation items that share a
   setup on purpose (`5 ms, 20 ms, 10 ms 파이프라인…`) are never reported against each other.
5. Items that list each other in `siblings:` (an intended pair: an O/X mirror, or two statements
   an author has looked at and keeps) are never reported, and never share a 4-choice question.

A pair with opposite answers is reported as a mirror (negated copy): the same statement keyed
both ways. Levels: `ERROR_SCORE` and above fails `studyapp check` (a copy with a few words
changed); `WARNING_SCORE` and above is a warning to look at (a paraphrase that shares most of its
wording). The thresholds were tuned on the bank; see docs/CHOICE.md for the pairs they find.
Lexical similarity cannot see a paraphrase in different words ("GPU가 놀면 GPU를 바꾼다" vs
"더 빠른 GPU로 교체") — those stay the reviewers' job.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from studyapp.content.model import Content, Item
from studyapp.content.problems import Problem

ERROR_SCORE = 0.85  # near-verbatim: fails `studyapp check`
WARNING_SCORE = 0.45  # most of the wording shared: a warning
CHOICE_SCORE = 0.40  # never two statements this close in one 4-choice question
NGRAM_SIZES = (2, 3)

# Particles that attach to the end of a word, cut off by one regex (longest first, so `에서는`
# wins over `는`). The `.{2,}?` keeps at least two characters: `나이` is not `나` + `이`.
_PARTICLES = [
    "에서는",
    "에서도",
    "으로는",
    "으로도",
    "에서",
    "에도",
    "에는",
    "으로",
    "로는",
    "로도",
    "보다",
    "까지",
    "부터",
    "처럼",
    "이나",
    "이며",
    "이고",
    "마다",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "의",
    "에",
    "와",
    "과",
    "도",
    "만",
    "로",
    "나",
]
_TRAILING_PARTICLE = re.compile(r"^(.{2,}?)(?:" + "|".join(sorted(_PARTICLES, key=len, reverse=True)) + r")$")
_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def normalise(text: str) -> str:
    """The statement as compared: NFKC, lower case, no punctuation or spaces, particles cut."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
    return "".join(_TRAILING_PARTICLE.sub(r"\1", word) for word in words)


def numbers_in(text: str) -> frozenset[str]:
    """The distinct numbers a statement mentions (`5 ms, 20 ms, 5 ms` → {'5', '20'})."""
    return frozenset(_NUMBER.findall(unicodedata.normalize("NFKC", text)))


def _ngrams(text: str) -> Counter[str]:
    return Counter(text[i : i + n] for n in NGRAM_SIZES for i in range(len(text) - n + 1))


def are_siblings(first: Item, second: Item) -> bool:
    """Either item lists the other as an intended mirror (`siblings:`)."""
    return second.id in getattr(first, "siblings", ()) or first.id in getattr(second, "siblings", ())


@dataclass(frozen=True)
class SimilarPair:
    first: Item
    second: Item
    score: float  # cosine similarity, 0..1

    @property
    def mirrored(self) -> bool:
        """Opposite answers: the same statement keyed O once and X once."""
        return self.first.answer != self.second.answer

    @property
    def is_error(self) -> bool:
        return self.score >= ERROR_SCORE


class SimilarityIndex:
    """TF-IDF vectors of a set of items, and every pair at or above a score."""

    def __init__(self, items: Iterable[Item]) -> None:
        self.items: dict[str, Item] = {item.id: item for item in items}
        counts = {item_id: _ngrams(normalise(item.statement)) for item_id, item in self.items.items()}
        document_frequency: Counter[str] = Counter()
        for grams in counts.values():
            document_frequency.update(grams.keys())
        total = len(counts)
        self._idf = {gram: math.log((1 + total) / (1 + df)) for gram, df in document_frequency.items()}
        self._counts = counts
        # Weighted on first use: a quiz start compares a few dozen items, `studyapp check` all.
        self._vectors: dict[str, dict[str, float]] = {}
        self._numbers = {item_id: numbers_in(item.statement) for item_id, item in self.items.items()}
        self._scores: dict[tuple[str, str], float] | None = None
        self._pair_cache: dict[tuple[str, str], float] = {}

    def _vector(self, item_id: str) -> dict[str, float]:
        """The item's TF-IDF vector, unit length."""
        vector = self._vectors.get(item_id)
        if vector is None:
            idf = self._idf
            weights = {
                gram: (1 + math.log(count)) * idf[gram] for gram, count in self._counts[item_id].items()
            }
            length = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            vector = self._vectors[item_id] = {gram: w / length for gram, w in weights.items() if w > 0}
        return vector

    def _all_scores(self) -> dict[tuple[str, str], float]:
        """Cosine of every pair sharing an n-gram (an inverted index skips the rest)."""
        if self._scores is None:
            ids = sorted(self._counts)
            count = len(ids)
            postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
            for number, item_id in enumerate(ids):
                for gram, weight in self._vector(item_id).items():
                    postings[gram].append((number, weight))
            # Integer pair keys (first * count + second): about twice as fast as tuples of ids.
            sums: dict[int, float] = defaultdict(float)
            for entries in postings.values():
                if len(entries) < 2:
                    continue
                for index, (first, first_weight) in enumerate(entries):
                    base = first * count
                    for second, second_weight in entries[index + 1 :]:
                        sums[base + second] += first_weight * second_weight
            self._scores = {(ids[key // count], ids[key % count]): value for key, value in sums.items()}
        return self._scores

    def score(self, first_id: str, second_id: str) -> float:
        """Cosine similarity of two items' statements (0 for different numbers or siblings)."""
        if first_id == second_id:
            return 1.0
        if not self._comparable(self.items[first_id], self.items[second_id]):
            return 0.0
        key = (first_id, second_id) if first_id < second_id else (second_id, first_id)
        if self._scores is not None:
            return min(1.0, self._scores.get(key, 0.0))
        # One pair without the all-pairs table: a 4-choice question checks a few dozen pairs,
        # so building the table (most of the detector's time) would slow every quiz start.
        if key not in self._pair_cache:
            first, second = self._vector(key[0]), self._vector(key[1])
            if len(second) < len(first):
                first, second = second, first
            self._pair_cache[key] = sum(weight * second.get(gram, 0.0) for gram, weight in first.items())
        return min(1.0, self._pair_cache[key])

    def _comparable(self, first: Item, second: Item) -> bool:
        if are_siblings(first, second):
            return False
        first_numbers, second_numbers = self._numbers[first.id], self._numbers[second.id]
        return not (first_numbers and second_numbers and first_numbers != second_numbers)

    def pairs(self, threshold: float = WARNING_SCORE) -> list[SimilarPair]:
        """Every comparable pair at or above `threshold`, closest first."""
        found = []
        for (first_id, second_id), value in self._all_scores().items():
            if value >= threshold:
                first, second = self.items[first_id], self.items[second_id]
                if self._comparable(first, second):
                    found.append(SimilarPair(first, second, min(1.0, value)))
        return sorted(found, key=lambda p: (-p.score, p.first.id, p.second.id))

    def too_close(self, first_id: str, second_id: str, threshold: float = CHOICE_SCORE) -> bool:
        """Must these two never share a 4-choice question? Siblings, or statements this close."""
        if are_siblings(self.items[first_id], self.items[second_id]):
            return True
        return self.score(first_id, second_id) >= threshold


def _shown(location_path: Path, line: int, base: Path | None) -> str:
    path = location_path
    if base is not None and path.is_relative_to(base):
        path = path.relative_to(base)
    return f"{path}:{line}"


def duplicate_problems(content: Content, base: Path | None = None) -> list[Problem]:
    """`studyapp check`'s near-duplicate findings (warnings, or errors for near-verbatim copies).

    Each pair is reported once, at the second item's line, naming both ids with `FILE:LINE`.
    """

    problems: list[Problem] = []  # a sibling naming no other item is the loader's error
    index = SimilarityIndex(content.items.values())
    for pair in index.pairs(WARNING_SCORE):
        first, second = sorted(
            (pair.first, pair.second), key=lambda i: (str(i.location.path), i.location.line)
        )
        kind = (
            "mirrored statements (similar wording keyed O and X)"
            if pair.mirrored
            else "near-duplicate statements"
        )
        where_first = _shown(first.location.path, first.location.line, base)
        where_second = _shown(second.location.path, second.location.line, base)
        problems.append(
            Problem(
                second.location.path,
                second.location.line,
                f"{kind}: '{first.id}' ({where_first}) and '{second.id}' ({where_second}), "
                f"similarity {pair.score:.2f} — merge or replace one; if both are meant, list each other in `siblings:`",
                warning=not pair.is_error,
            )
        )
    return problems
