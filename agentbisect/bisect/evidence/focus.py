"""The question's focus, and the spans of the answer that fill it.

A question asks for something: a wh-target ("what *time*", "which *platform*") or a verdict on
a predicate ("do I need to *fast*", "is my dog *due*"). An answer that restates a user's record
beside a rule fills that focus with one span — "from 11 am", "Platform 11", "No fasting needed",
"she's due now" — and the other spans repeat the entity details (names, dates, ids). This module
finds, without a parser and without any domain word:

- the question's focus (``question_focus``): the wh-type of its last interrogative sentence (a
  time, a number, the value of a named thing, a reason, a yes/no verdict) and its predicate terms
  (its lowercase content terms and their adjacent pairs: names, numbers, codes and days such as
  "tomorrow" are the entity details, not the predicate, and so are the words of the subject the
  question asks about, ``question_subject``: "is *my dog* due");
- the fillers of a typed slot in a clause (``slot_values``): times and dates normalised so that
  ``11 am``, ``11:00`` and ``11.00`` agree, numbers, or the value written next to the wh-target
  noun ("platform 11").

``signals/focus.py`` uses them for the ``focus`` signal.
"""

from __future__ import annotations

import itertools
import re

from msgspec import Struct

# auxiliaries that open a yes/no question
_AUX = frozenset(
    """is are am was were do does did can could should shall will would may might must has have
    had isn aren wasn weren don doesn didn can't cannot couldn shouldn won wouldn hasn
    haven hadn""".split()  # noqa: SIM905
)
_TIME_WH = tuple(
    tuple(pair.split())
    for pair in (  # noqa: SIM905
        "what time|what date|what day|what hour|how long|how soon|how late|how early|by when|"
        "until when|till when"
    ).split("|")
)
_NUMBER_WH = frozenset(
    ["many", "much", "far", "old", "big", "heavy", "tall", "high", "large", "often"]
)
# the subject of a question: articles and possessives open it (demonstratives are often
# pronouns: "is that covered"); be-forms take subject + complement, every other auxiliary takes
# subject + verb form ("will my domain renew", "hasn't my withdrawal arrived")
_SUBJECT_DET = frozenset(["the", "a", "an", "my", "our", "your", "his", "her", "its", "their"])
_BE = frozenset(["is", "are", "am", "was", "were", "isn", "aren", "wasn", "weren"])
_PRONOUN = frozenset(["i", "we", "you", "he", "she", "it", "they"])
# words that fill grammar, never a wh-target noun ("what is …", "which of …") nor part of a
# subject: every auxiliary, determiner and pronoun, and prepositions. (After "what"/"which" an
# auxiliary once missing from this list made a "value" question with no nouns, and such a focus
# fills no slot, exactly like an "open" one: one list changes no score.)
_FUNCTION = (
    _AUX
    | _SUBJECT_DET
    | _PRONOUN
    | frozenset(["of", "to", "for", "in", "on", "at", "this", "that", "these", "those", "there"])
)
# days named relative to now say *when* the question is asked about, like a named day ("on
# Saturday", a capitalised name) or a date: entity details, never what is asked of them
_DEICTIC_DAY = frozenset(["today", "tomorrow", "tonight", "yesterday"])
# Patterns are strings compiled on first use (re caches them), as in lexical.py: importing this
# module costs nothing on paths that never score evidence.
_WORD = r"[^\W_]+(?:['’][^\W_]+)?"
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|tonight|yesterday"
_CLOCK = r"(?i)\b(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![\w])|\b(\d{1,2})[:h](\d{2})\b"
_NOON = r"(?i)\b(noon|midday|midnight)\b"
_DATE = rf"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTHS})\b|\b({_MONTHS})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"
_DAY = rf"(?i)\b({_DAYS})\b"
_DURATION = (
    r"(?i)\b(\d+(?:[.,]\d+)?)\s*(minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?)\b"
)


class Focus(Struct, frozen=True):
    """What a question asks for.

    ``kind``: ``time`` | ``number`` | ``value`` (which/what X) | ``reason`` | ``yesno`` |
    ``open``. ``target``: for ``time``, ``clock`` (what time), ``duration`` (how long) or None
    (when: any time or date). ``nouns``: the words the wh-phrase asks about — the run of content
    words right after it ("how many *checked bags* are …", "which *platform* does …"). ``predicate``:
    the sentence's lowercase content words and adjacent pairs of them, as written (the units whose
    repetitions and paraphrases in the answer are its anchors), without the subject's words.
    ``subject``: the words of the phrase the question is about ("is *my dog* due …", "is *the
    dog food* I bought part of …"; ``question_subject``), left out of the predicate.
    """

    kind: str
    target: str | None
    nouns: tuple[str, ...]
    predicate: tuple[str, ...]
    subject: tuple[str, ...] = ()


def _question_sentence(question: str) -> str:
    """The last interrogative sentence: up to the last ``?``, from the boundary before it."""
    end = question.rfind("?")
    if end < 0:
        return question.strip()
    head = question[:end]
    cut = max((m.end() for m in re.finditer(r"[.!?;:\n]\s+|\s[—–-]\s|[—–]", head)), default=0)
    return head[cut:].strip()


def question_subject(low: list[str], stop: frozenset[str]) -> list[str]:
    """The subject's words in a question's lowercase words, by the opening auxiliary's grammar.

    The subject is the article or possessive phrase right after the auxiliary that opens the
    question (within its first four words): the run of content words after the determiner. Its
    extent, without a parser: after a be-form the run holds subject + complement ("is our nginx
    version *affected* by"), so its last word is left to the predicate unless a pronoun ends the
    run ("is the dog food I bought …": a relative clause follows a whole subject); after any
    other auxiliary it holds subject + verb ("will my domain *renew* …"), so only its first word
    is surely the subject. A wh-word before a be-form ("what is the rate limit …") makes the
    phrase what is asked, not its subject: none then.
    """
    for i, lw in enumerate(low[:4]):
        aux = lw.split("'")[0]
        if aux not in _AUX:
            continue
        if (aux in _BE and i > 0) or i + 1 >= len(low) or low[i + 1] not in _SUBJECT_DET:
            return []
        j = i + 2
        run: list[str] = []
        # (a contraction is checked by its first part, as everywhere here: "isn't" is "isn")
        while j < len(low) and (w := low[j].split("'")[0]) not in stop and w not in _FUNCTION:
            run.append(w)
            j += 1
        if aux not in _BE:
            return run[:1]
        if len(run) > 1 and not (j < len(low) and low[j] in _PRONOUN):
            return run[:-1]
        return run
    return []


def question_focus(question: str, stop: frozenset[str]) -> Focus:
    """The focus of ``question``; ``stop`` is the scorer's stop-word list."""
    sent = _question_sentence(question)
    words = [m.group(0) for m in re.finditer(_WORD, sent)]
    low = [w.lower().replace("’", "'") for w in words]
    kind, target = "open", None
    first = low[:1]
    pair = tuple(low[:2])
    if pair in (("what", "time"), ("what", "hour")):
        kind, target = "time", "clock"
    elif pair == ("how", "long"):
        kind, target = "time", "duration"
    elif pair in _TIME_WH or first == ["when"]:
        kind, target = "time", None
    elif first == ["how"] and len(low) > 1 and low[1] in _NUMBER_WH:
        kind = "number"
    elif first in (["which"], ["what"]) and len(low) > 1 and low[1] not in _FUNCTION:
        kind = "value"
    elif first == ["why"]:
        kind = "reason"
    elif first and first[0].split("'")[0] in _AUX:  # "isn't" -> isn, "can't" -> can
        kind = "yesno"
    # the predicate: lowercase content words (a capitalised word inside the sentence is a
    # name, a digit makes a number or code, today/tomorrow a day: entity details), and
    # adjacent pairs of them
    content: list[str | None] = []
    for i, (w, lw) in enumerate(zip(words, low, strict=True)):
        base = lw.split("'")[0]
        if (
            base in stop
            or base in _AUX
            or base in _DEICTIC_DAY
            or base in ("how", "what", "which", "why", "when", "where", "who")
            or len(base) < 2
            or any(c.isdigit() for c in w)
            or (i > 0 and w[:1].isupper())
        ):
            content.append(None)
            continue
        content.append(base)
    units: list[str] = [w for w in content if w]
    units += [f"{a} {b}" for a, b in itertools.pairwise(content) if a and b]
    # what the wh-phrase asks about: the content words right after it, up to the first function
    # word ("how many checked bags are" -> checked bags); a number is not a noun
    nouns: list[str] = []
    if kind in ("time", "number", "value"):
        skip = 2 if low[:1] == ["how"] or pair in _TIME_WH else 1
        for w, lw in zip(words[skip:], low[skip:], strict=True):
            base = lw.split("'")[0]  # ("aren't" ends the nouns as "are not" does)
            if base in stop or base in _AUX or any(c.isdigit() for c in lw):
                break
            nouns.append(w)
    # the subject's record states the entity, not what is asked of it: its words anchor no
    # focus (unless nothing else is left to ask)
    subject = set(question_subject(low, stop))
    kept = [u for u in units if not subject & set(u.split())]
    if subject and kept:
        units = kept
    return Focus(kind, target, tuple(nouns), tuple(dict.fromkeys(units)), tuple(sorted(subject)))


def time_keys(text: str) -> set[str]:
    """Clock times and dates in ``text``, normalised: ``11 am``/``11:00``/``11.00 a.m.`` →
    ``t11:00``; ``2 pm`` → ``t14:00``; ``18 April``/``April 18`` → ``d18 april``; noon → t12:00."""
    out: set[str] = set()
    for m in re.finditer(_CLOCK, text):
        if m.group(4) is not None:
            h, mi = int(m.group(4)), int(m.group(5))
        else:
            h, mi = int(m.group(1)), int(m.group(2) or 0)
            pm = m.group(3).lower().startswith("p")
            if pm and h < 12:
                h += 12
            elif not pm and h == 12:
                h = 0
        if h < 25 and mi < 60:
            out.add(f"t{h}:{mi:02d}")
    for m in re.finditer(_NOON, text):
        out.add("t0:00" if m.group(1).lower() == "midnight" else "t12:00")
    for m in re.finditer(_DATE, text):
        day = m.group(1) or m.group(4)
        month = (m.group(2) or m.group(3)).lower()[:3]
        out.add(f"d{int(day)} {month}")
    return out


def _durations(text: str) -> set[str]:
    """Durations in ``text`` as number and singular unit: ``3 days`` -> ``3 day``."""
    return {f"{m.group(1)} {m.group(2).lower().rstrip('s')}" for m in re.finditer(_DURATION, text)}


def slot_values(text: str, focus: Focus, term_keys: list[str], noun_keys: set[str]) -> set[str]:
    """The values in ``text`` of the type ``focus`` asks for (empty for yes/no, why, open).

    ``term_keys`` are the text's content-term keys in order and ``noun_keys`` the keys of the
    focus's nouns (the scorer's normalisation). A time question's values are normalised times
    (clock times only for "what time", durations for "how long", also dates and days for
    "when"); a number or which-X question's values are the numbers written within two content
    terms of one of its nouns ("two checked bags", "Platform 11") — not every number of the
    text, which would take in ids and codes.
    """
    if focus.kind == "time":
        if focus.target == "duration":
            return _durations(text)
        keys = time_keys(text)
        if focus.target == "clock":
            return {k for k in keys if k.startswith("t")}
        return keys | _durations(text) | {m.group(0).lower() for m in re.finditer(_DAY, text)}
    if focus.kind in ("number", "value") and noun_keys:
        out: set[str] = set()
        for i, k in enumerate(term_keys):
            if k not in noun_keys:
                continue
            for j in range(max(0, i - 2), min(len(term_keys), i + 3)):
                if j != i and re.fullmatch(r"[\d.]+", term_keys[j]):
                    out.add(term_keys[j])
        return out
    return set()


def content_words(text: str, stop: frozenset[str]) -> list[str]:
    """The distinct lowercase words of ``text`` that may anchor a focus (no stop words, numbers
    or single letters), sorted: with the predicate units, what the scorer embeds one by one."""
    words = {m.group(0).lower() for m in re.finditer(_WORD, text)}
    return sorted(
        w for w in words if w not in stop and len(w) > 1 and not any(c.isdigit() for c in w)
    )
