"""The scoring context every evidence signal reads: one answer, its sources, and their vectors.

``Scoring`` computes once what more than one signal needs — the sources' term profiles and the
run's IDF, the answer's clauses, the question's focus, and (when an embedder is given) the
vectors — and ``Signal`` is the record a signal module registers: its name, its weight in the
evidence score, the texts it needs embedded, and its scorer, a pure function of a ``Scoring``
that gives one value in [0, 1] per source.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Vector
from agentbisect.bisect.evidence.lexical import (
    STOP,
    Corpus,
    Profile,
    clauses,
    profile,
    union,
    without,
)

if TYPE_CHECKING:
    from agentbisect.bisect.evidence.focus import Focus

# What a signal can ask to have embedded besides the sources, in the order they are embedded:
# the answer, its clauses, the expected answer, the question, the focus words (the answer's
# content words and the question's predicate units, compared one word to one word).
TEXT_KINDS = ("answer", "clauses", "expected", "question", "words")


class Scoring:
    """One scoring of ``texts`` (the sources) as evidence for ``answer``."""

    def __init__(
        self, texts: list[str], answer: str, expected: str | None, question: str | None
    ) -> None:
        self.texts = texts
        self.answer = answer
        self.expected = expected
        self.question = question
        self.profiles = [profile(t) for t in texts]
        self.corpus = Corpus(self.profiles)
        self.clauses = clauses(answer) or [answer]
        self.focus = _question_focus(question)
        self.words = _focus_words(answer, self.focus)
        self.question_profile = profile(question) if question else None
        self.expected_profile = profile(expected) if expected else None
        # the vectors (``attach``); None or empty without an embedder
        self.vecs: list[Vector] | None = None
        self.answer_vec: Vector | None = None
        self.clause_vecs: list[Vector] | None = None
        self.expected_vec: Vector | None = None
        self.question_vec: Vector | None = None
        self.word_vec: dict[str, Vector] = {}
        # the signals scored so far, by name, in registry order (a signal may read an earlier one)
        self.done: dict[str, list[float]] = {}

    @cached_property
    def new(self) -> Profile:
        """The answer's terms and phrases beyond what is given: the question's and, with an
        expected answer, whatever the two answers share (only the disputed content counts)."""
        return new_content(self.answer, self.question_profile, self.expected_profile)

    def extra_texts(self, kinds: set[str]) -> list[str]:
        """The texts of ``kinds`` to embed after the sources, in ``TEXT_KINDS`` order."""
        by_kind = {
            "answer": [self.answer],
            "clauses": self.clauses,
            "expected": [self.expected] if self.expected else [],
            "question": [self.question] if self.question else [],
            "words": self.words,
        }
        return [t for k in TEXT_KINDS if k in kinds for t in by_kind[k]]

    def attach(self, got: list[Vector], kinds: set[str]) -> None:
        """Take the vectors of the sources and of ``extra_texts(kinds)``, in that order."""
        if not got:
            return
        self.vecs = got[: len(self.texts)]
        rest = iter(got[len(self.texts) :])
        if "answer" in kinds:
            self.answer_vec = next(rest, None)
        if "clauses" in kinds:
            self.clause_vecs = [next(rest) for _ in self.clauses]
        if "expected" in kinds and self.expected:
            self.expected_vec = next(rest, None)
        if "question" in kinds and self.question:
            self.question_vec = next(rest, None)
        if "words" in kinds:
            self.word_vec = dict(zip(self.words, rest, strict=True))


def new_content(answer: str, question: Profile | None, expected: Profile | None) -> Profile:
    """``Scoring.new`` for an answer and the profiles of what is given (also read by
    ``highlights``, which needs no vectors, focus or clauses)."""
    return without(profile(answer), union(question, expected))


class Signal(Struct, frozen=True):
    """One evidence signal, as its module registers it (``signals/__init__.py``)."""

    name: str  # its key in the report's ``evidence.signals`` (results.report.EvidenceSignals)
    weight: float  # how much it counts in the evidence score (all signals are reported)
    embeds: tuple[str, ...]  # the TEXT_KINDS it needs embedded (the sources always are)
    score: Callable[[Scoring], list[float]]  # one value in [0, 1] per source, in order


def _question_focus(question: str | None) -> Focus | None:
    """The focus of ``question``; None without one (there is no focus to fill)."""
    if not question:
        return None
    # focus.py is imported on first use: runs that never score evidence against a question
    # (upstream parity) do not pay for it (tests/test_startup.py)
    from agentbisect.bisect.evidence.focus import question_focus

    return question_focus(question, STOP)


def _focus_words(answer: str, focus: Focus | None) -> list[str]:
    """The one-word (and two-word) texts the focus anchors compare: the answer's content words
    and the question's predicate units."""
    if focus is None:
        return []
    from agentbisect.bisect.evidence.focus import content_words  # see _question_focus

    return [*content_words(answer, STOP), *focus.predicate]
