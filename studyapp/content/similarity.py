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

Mirrors (`mirror_change`, `SimilarityIndex.mirrors`): two statements word for word alike except
a short stretch that negates, swaps an antonym, or changes a number ("…측정한다" / "…측정하지
않는다", "증가" / "감소", "50개/s" / "100개/s"). Keyed O and X, they contradict each other, so a
4-choice question holding both is solved by logic alone. The cosine above cannot see the number
kind at all (a different set of numbers is "not comparable") and scores a short negated sentence
low, so the mirror test compares the words themselves: it aligns the two word sequences and looks
at what differs. A mirror pair without `siblings:` is a `studyapp check` warning; the 4-choice
generator never puts one in a question, whatever the keys.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
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
    return "".join(words_of(text))


@functools.lru_cache(maxsize=8192)
def words_of(text: str) -> tuple[str, ...]:
    """The statement's words as compared: NFKC, lower case, each with its trailing particle cut."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
    return tuple(_TRAILING_PARTICLE.sub(r"\1", word) for word in words)


def numbers_in(text: str) -> frozenset[str]:
    """The distinct numbers a statement mentions (`5 ms, 20 ms, 5 ms` → {'5', '20'})."""
    return frozenset(_NUMBER.findall(unicodedata.normalize("NFKC", text)))


# Mirrors: at most this many words changed on either side (or a fifth of the words, if more)...
MIRROR_MAX_CHANGED_WORDS = 3
MIRROR_MAX_CHANGED_SHARE = 0.2
# ...and at least this share of the longer one's words in common (`측정한다` / `측정하지 않는다`
# changes two words of a five-word sentence).
MIRROR_MIN_SHARED = 0.6
# Pairs below this raw n-gram cosine are not aligned word by word (a prefilter: a mirror shares
# nearly all its n-grams; the detector runs over every pair of the bank in `studyapp check`).
MIRROR_PREFILTER_SCORE = 0.3

MIRROR_NEGATION = "negation"
MIRROR_ANTONYM = "antonym"
MIRROR_NUMBER = "number"
MIRROR_WORDING = "wording"  # another word swapped in, or only a particle differs

# Stems that negate what they attach to: `측정하지 않는다`, `수 없다`, `못한다`, `아니다`, `불가능`.
_NEGATION_MARKERS = ("않", "없", "못", "아니", "아닌", "불가", "금지", "말아", "not", "never", "no")
# Word stems of opposite meaning, either way round (`증가`/`감소`, `켠다`/`끈다`).
_ANTONYMS = (
    ("증가", "감소"),
    ("늘", "줄"),
    ("높", "낮"),
    ("크", "작"),
    ("많", "적"),
    ("빠르", "느리"),
    ("빠른", "느린"),
    ("빨라", "느려"),
    ("길", "짧"),
    ("긴", "짧은"),
    ("이전", "이후"),
    ("먼저", "나중"),
    ("앞", "뒤"),
    ("포함", "제외"),
    ("있", "없"),
    ("켜", "끄"),
    ("켠", "끈"),
    ("최대", "최소"),
    ("상한", "하한"),
    ("동기", "비동기"),
    ("병렬", "순차"),
    ("병렬", "직렬"),
    ("성공", "실패"),
    ("허용", "금지"),
    ("cpu", "gpu"),
    ("true", "false"),
    ("before", "after"),
)


def mirror_change(first: Sequence[str] | str, second: Sequence[str] | str) -> str | None:
    """How two statements that say nearly the same words differ, or None when they are not that alike.

    Each side is a statement or its `words_of`. The word sequences are aligned; the pair is a
    mirror when at most `MIRROR_MAX_CHANGED_WORDS` (or a fifth of the words) differ on each side
    and `MIRROR_MIN_SHARED` of the longer one's words are shared. The change is named by what differs:
    `MIRROR_NEGATION` (a negating stem on one side only), `MIRROR_NUMBER` (digits),
    `MIRROR_ANTONYM` (a pair of opposite stems), else `MIRROR_WORDING`.
    """
    first_words = words_of(first) if isinstance(first, str) else tuple(first)
    second_words = words_of(second) if isinstance(second, str) else tuple(second)
    if not first_words or not second_words:
        return None
    # Numbers align as one placeholder: `2~4번` against `2~3` is one changed fact, not three words.
    first_shape, second_shape = _number_shape(first_words), _number_shape(second_words)
    matcher = SequenceMatcher(None, first_shape, second_shape, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    longest = max(len(first_shape), len(second_shape))
    allowed = max(MIRROR_MAX_CHANGED_WORDS, round(MIRROR_MAX_CHANGED_SHARE * longest))
    if longest - matched > allowed or matched < MIRROR_MIN_SHARED * longest:
        return None
    only_first: list[str] = []
    only_second: list[str] = []
    for tag, start_a, end_a, start_b, end_b in matcher.get_opcodes():
        if tag != "equal":
            only_first += first_shape[start_a:end_a]
            only_second += second_shape[start_b:end_b]
    one, other = " ".join(only_first), " ".join(only_second)
    if _negates(one) != _negates(other):
        return MIRROR_NEGATION
    if _numbers_of(first_words) != _numbers_of(second_words):
        return MIRROR_NUMBER
    if any((a in one and b in other) or (b in one and a in other) for a, b in _ANTONYMS):
        return MIRROR_ANTONYM
    return MIRROR_WORDING


_NUMBER_TOKEN = "<n>"
_DIGIT = re.compile(r"\d")


def _number_shape(words: Sequence[str]) -> list[str]:
    """The words with every number (and the unit glued to it) as one placeholder."""
    return [_NUMBER_TOKEN if _DIGIT.search(word) else word for word in words]


def _numbers_of(words: Sequence[str]) -> list[str]:
    return [number for word in words for number in _NUMBER.findall(word)]


def _negates(words: str) -> bool:
    return any(marker in words for marker in _NEGATION_MARKERS if not marker.isascii()) or any(
        marker in words.split() for marker in _NEGATION_MARKERS if marker.isascii()
    )


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


@dataclass(frozen=True)
class MirrorPair:
    first: Item
    second: Item
    change: str  # MIRROR_NEGATION, MIRROR_NUMBER, MIRROR_ANTONYM or MIRROR_WORDING


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
        self._mirror_cache: dict[tuple[str, str], str | None] = {}
        self._words: dict[str, tuple[str, ...]] = {}

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
        return self._raw_score(first_id, second_id)

    def _raw_score(self, first_id: str, second_id: str) -> float:
        """Cosine of two statements, whatever their numbers or siblings."""
        key = (first_id, second_id) if first_id < second_id else (second_id, first_id)
        if self._scores is not None:
            return min(1.0, self._scores.get(key, 0.0))
        # One pair without the all-pairs table: a 4-choice question checks a few dozen pairs,
        # so building the table (most of the detector's time) would slow every quiz start.
        if key not in self._pair_cache:
            first, second = self._vector(key[0]), self._vector(key[1])
            # Only the shared grams count; the key views intersect in C, a few times faster.
            self._pair_cache[key] = sum(first[gram] * second[gram] for gram in first.keys() & second.keys())
        return min(1.0, self._pair_cache[key])

    def mirror(self, first_id: str, second_id: str) -> str | None:
        """How two statements mirror each other (`mirror_change`), whatever their answers; None
        when they do not, or when they are declared siblings."""
        if first_id == second_id or are_siblings(self.items[first_id], self.items[second_id]):
            return None
        key = (first_id, second_id) if first_id < second_id else (second_id, first_id)
        if key not in self._mirror_cache:
            change = None
            if self._raw_score(*key) >= MIRROR_PREFILTER_SCORE:
                change = mirror_change(self._words_of(key[0]), self._words_of(key[1]))
            self._mirror_cache[key] = change
        return self._mirror_cache[key]

    def _words_of(self, item_id: str) -> tuple[str, ...]:
        words = self._words.get(item_id)
        if words is None:
            words = self._words[item_id] = words_of(self.items[item_id].statement)
        return words

    def mirrors(self, opposite_answers: bool = True) -> list[MirrorPair]:
        """Every mirror pair of the bank (keyed O and X only, by default), in id order."""
        found = []
        close = (pair for pair, value in self._all_scores().items() if value >= MIRROR_PREFILTER_SCORE)
        for first_id, second_id in sorted(close):
            first, second = self.items[first_id], self.items[second_id]
            if opposite_answers and first.answer == second.answer:
                continue
            change = self.mirror(first_id, second_id)
            if change is not None:
                found.append(MirrorPair(first, second, change))
        return found

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
        """Must these two never share a 4-choice question? Siblings, statements this close, or a
        mirror pair (whatever the keys: side by side they read as "one of these two")."""
        if are_siblings(self.items[first_id], self.items[second_id]):
            return True
        return self.score(first_id, second_id) >= threshold or self.mirror(first_id, second_id) is not None


def _shown(location_path: Path, line: int, base: Path | None) -> str:
    path = location_path
    if base is not None and path.is_relative_to(base):
        path = path.relative_to(base)
    return f"{path}:{line}"


def duplicate_problems(
    content: Content, base: Path | None = None, index: SimilarityIndex | None = None
) -> list[Problem]:
    """`studyapp check`'s near-duplicate findings (warnings, or errors for near-verbatim copies),
    and mirror pairs keyed O and X without `siblings:` (warnings). `index`: one built already.

    Each pair is reported once, at the second item's line, naming both ids with `FILE:LINE`.
    """

    problems: list[Problem] = []  # a sibling naming no other item is the loader's error
    index = index or SimilarityIndex(content.items.values())
    mirrors = {(pair.first.id, pair.second.id): pair.change for pair in index.mirrors()}
    for pair in index.pairs(WARNING_SCORE):
        change = mirrors.pop(_pair_key(pair.first, pair.second), None)
        if change is not None and not pair.is_error:
            mirrors[_pair_key(pair.first, pair.second)] = change  # reported below, as a mirror
            continue
        kind = (
            "mirrored statements (similar wording keyed O and X)"
            if pair.mirrored
            else "near-duplicate statements"
        )
        problems.append(
            _pair_problem(
                pair.first,
                pair.second,
                base,
                f"{kind}: {{pair}}, similarity {pair.score:.2f} — merge or replace one; "
                "if both are meant, list each other in `siblings:`",
                warning=not pair.is_error,
            )
        )
    for (first_id, second_id), change in sorted(mirrors.items()):
        problems.append(
            _pair_problem(
                content.items[first_id],
                content.items[second_id],
                base,
                f"mirror pair without `siblings:` ({MIRROR_LABELS[change]}, keyed O and X): {{pair}} — "
                "side by side in a 4-choice question logic alone finds the key; list each other in "
                "`siblings:` or rewrite one",
                warning=True,
            )
        )
    return problems


MIRROR_LABELS = {
    MIRROR_NEGATION: "the same words negated",
    MIRROR_ANTONYM: "the same words with an opposite",
    MIRROR_NUMBER: "the same words with another number",
    MIRROR_WORDING: "the same words, one swapped",
}


def _pair_key(first: Item, second: Item) -> tuple[str, str]:
    return (first.id, second.id) if first.id < second.id else (second.id, first.id)


def _pair_problem(first: Item, second: Item, base: Path | None, message: str, warning: bool) -> Problem:
    """A problem about two items at the later one's line; `{pair}` in `message` names both."""
    first, second = sorted((first, second), key=lambda i: (str(i.location.path), i.location.line))
    where_first = _shown(first.location.path, first.location.line, base)
    where_second = _shown(second.location.path, second.location.line, base)
    named = f"'{first.id}' ({where_first}) and '{second.id}' ({where_second})"
    return Problem(second.location.path, second.location.line, message.replace("{pair}", named), warning)
