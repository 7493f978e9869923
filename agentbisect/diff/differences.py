"""The sources of the diverging call that differ between the two runs, their changed spans, and
their rank.

Sources the two contexts hold alike (past formatting, ids and times) are set aside; a source
whose text differs only in ids or times is kept as immaterial. What is left is paired: by place
(the tool result of two aligned tool calls, the output of two aligned LLM calls), then by
likeness of text; a source with no partner is a difference with one side only.

Rank: the evidence signals of ``afp bisect`` (``bisect.evidence.scorer``), contrastive — the bad
call's output is the answer, the good call's output the expected one — score each side's changed
text; a difference's score is how much more the bad answer draws on its bad side than on its
good side. A correlational proxy, and labelled so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher

from agentbisect.bisect.embed.vectors import Vector
from agentbisect.bisect.evidence.scorer import EvidenceItem, score_evidence
from agentbisect.bisect.pipeline.source_kind import LLM_OUTPUT, TOOL_RESULT
from agentbisect.diff.normalize import ID_PATTERNS, canonical, id_key_regions
from agentbisect.diff.steps import Source
from agentbisect.results.diff import Change, Difference, SourceSide, Span

# a word, a number or code with inner separators (5,000  6:30  SH-240  2026-12-04T10:00Z) as one
# token, as the evidence signals read them; else one character of punctuation
_TOKEN = re.compile(r"[^\W_]+(?:[.,:'’\-][^\W_]+)*|[^\w\s]|_")
MAX_DIFF_TOKENS = 20_000  # past this many tokens a side, a text changes as a whole
MIN_LIKENESS = 0.2  # two leftover sources are one changed source from this token overlap on


def side(s: Source) -> SourceSide:
    return SourceSide(
        step=s.step, llmIndex=s.llm_index, name=s.name, kind=s.kind, text=canonical(s.text)
    )


def _regions(text: str) -> list[tuple[int, int]]:
    out = [(m.start(), m.end()) for rx in ID_PATTERNS for m in rx.finditer(text)]
    return out + id_key_regions(text)


def _covered(span: tuple[int, int], regions: list[tuple[int, int]]) -> bool:
    s, e = span
    return s == e or any(rs <= s and e <= re_ for rs, re_ in regions)


def changes(good: str, bad: str) -> list[Change]:
    """The changed spans of two canonical texts, token by token."""
    ta = [(m.start(), m.end()) for m in _TOKEN.finditer(good)]
    tb = [(m.start(), m.end()) for m in _TOKEN.finditer(bad)]
    if max(len(ta), len(tb)) > MAX_DIFF_TOKENS:
        return [
            Change(
                good=good,
                bad=bad,
                goodSpan=Span(0, len(good)),
                badSpan=Span(0, len(bad)),
                material=True,
            )
        ]
    wa = [good[s:e] for s, e in ta]
    wb = [bad[s:e] for s, e in tb]
    ra, rb = _regions(good), _regions(bad)
    out: list[Change] = []
    matcher = SequenceMatcher(None, wa, wb, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        ga = (ta[i1][0], ta[i2 - 1][1]) if i2 > i1 else _at(ta, i1, len(good))
        gb = (tb[j1][0], tb[j2 - 1][1]) if j2 > j1 else _at(tb, j1, len(bad))
        material = not (_covered(ga, ra) and _covered(gb, rb))
        out.append(
            Change(
                good=good[ga[0] : ga[1]],
                bad=bad[gb[0] : gb[1]],
                goodSpan=Span(*ga),
                badSpan=Span(*gb),
                material=material,
            )
        )
    return out


def _at(tokens: list[tuple[int, int]], i: int, end: int) -> tuple[int, int]:
    """The empty span where an insertion goes: before token ``i`` (or at the end)."""
    pos = tokens[i][0] if i < len(tokens) else end
    return pos, pos


def _words(key: str) -> set[str]:
    return set(_TOKEN.findall(key.lower()))


def pair(
    good: list[Source], bad: list[Source], step_pairs: dict[int, int]
) -> tuple[list[tuple[Source | None, Source | None]], list[tuple[Source, Source]]]:
    """The differing sources of two contexts, paired; and the immaterial ones (ids, times)."""
    by_key: dict[str, list[Source]] = {}
    for s in bad:
        by_key.setdefault(s.key, []).append(s)
    left_good: list[Source] = []
    immaterial: list[tuple[Source, Source]] = []
    for s in good:
        alike = by_key.get(s.key)
        if alike:
            other = alike.pop(0)
            if canonical(s.text) != canonical(other.text):
                immaterial.append((s, other))
        else:
            left_good.append(s)
    left_bad = sorted(
        (s for group in by_key.values() for s in group), key=lambda s: (s.owner, s.position)
    )
    pairs: list[tuple[Source | None, Source | None]] = []
    # by place: the one result of two aligned tool calls, the one output of two aligned LLM
    # calls (an injection's place in its group depends on the format: paired by text below)
    by_place = {(s.owner, s.position): s for s in left_bad if s.kind in (TOOL_RESULT, LLM_OUTPUT)}
    rest: list[Source] = []
    for s in left_good:
        at = step_pairs.get(s.owner)
        placed = by_place.get((at, s.position)) if at is not None else None
        if placed is not None and placed.kind == s.kind:
            del by_place[(placed.owner, placed.position)]
            pairs.append((s, placed))
        else:
            rest.append(s)
    taken = {id(b) for _, b in pairs}
    remaining = [s for s in left_bad if id(s) not in taken]
    # by likeness, the most alike first
    words_bad = [_words(b.key) for b in remaining]
    likes: list[tuple[float, int, int]] = []
    for i, g in enumerate(rest):
        wg = _words(g.key)
        for j, wb in enumerate(words_bad):
            like = len(wg & wb) / max(1, len(wg | wb))
            if like >= MIN_LIKENESS:
                likes.append((like, i, j))
    used_g: set[int] = set()
    used_b: set[int] = set()
    matched: dict[int, int] = {}
    for _, i, j in sorted(likes, key=lambda x: (-x[0], x[1], x[2])):
        if i not in used_g and j not in used_b:
            used_g.add(i)
            used_b.add(j)
            matched[i] = j
    for i, g in enumerate(rest):
        pairs.append((g, remaining[matched[i]] if i in matched else None))
    pairs.extend((None, b) for j, b in enumerate(remaining) if j not in used_b)
    return pairs, immaterial


def _changed_text(d: Difference, which: str) -> str:
    """The text a side of a difference contributes to the ranking: its changed spans (the whole
    text for a side with no partner)."""
    src = d.good if which == "good" else d.bad
    if src is None:
        return ""
    if (d.good is None) != (d.bad is None):
        return src.text
    spans = [getattr(c, which) for c in d.changes if c.material]
    return " … ".join(x for x in spans if x.strip())


def differences(
    pairs: list[tuple[Source | None, Source | None]],
    immaterial: list[tuple[Source, Source]],
) -> list[Difference]:
    out: list[Difference] = []
    for g, b in pairs:
        gs = side(g) if g is not None else None
        bs = side(b) if b is not None else None
        kind = (b or g).kind  # type: ignore[union-attr]  # a pair has at least one side
        ch = changes(gs.text if gs else "", bs.text if bs else "")
        out.append(Difference(kind=kind, good=gs, bad=bs, changes=ch, score=0.0, material=True))
    for g, b in immaterial:
        gs, bs = side(g), side(b)
        out.append(
            Difference(
                kind=b.kind,
                good=gs,
                bad=bs,
                changes=[
                    Change(
                        good=c.good,
                        bad=c.bad,
                        goodSpan=c.goodSpan,
                        badSpan=c.badSpan,
                        material=False,
                    )
                    for c in changes(gs.text, bs.text)
                ],
                score=0.0,
                material=False,
            )
        )
    return out


def rank(
    diffs: list[Difference],
    answer: str,
    expected: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    question: str | None,
) -> list[Difference]:
    """Score the material differences (contrastive evidence) and order them; immaterial ones
    (nothing but ids and times changed) last, unscored."""
    items: list[EvidenceItem] = []
    for i, d in enumerate(diffs):
        if not d.material:
            continue
        for which in ("good", "bad"):
            text = _changed_text(d, which)
            if text.strip():
                items.append(EvidenceItem(f"{i}:{which}", text))
    if items and answer.strip():
        for sc in score_evidence(items, answer, embed_many, expected=expected, question=question):
            at_, which = sc.id.split(":")
            d = diffs[int(at_)]
            d.signals[which] = {k: round(v, 4) for k, v in sc.signals.items()}
            d.signals[which]["score"] = round(sc.score, 4)
    for d in diffs:
        if d.material:
            bad = d.signals.get("bad", {}).get("score", 0.0)
            good = d.signals.get("good", {}).get("score", 0.0)
            d.score = round(bad - good, 4)
    order = sorted(range(len(diffs)), key=lambda i: (not diffs[i].material, -diffs[i].score))
    return [diffs[i] for i in order]
