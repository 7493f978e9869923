"""Build the issue-29 ranking corpus's scenarios from its data files; that is this module's one job.

``data/seeds.json`` holds hand-written domain seeds (an organisation, the user's record, two tiers,
three quantities a user asks about); ``data/grammar.json`` holds the sentence templates; this
module draws, per scenario, with a random generator seeded by the scenario's id:

- an **agent shape**: ``react`` (look up the record, then the terms), ``rag`` (retrieval, one
  look-up), ``multi-round`` (three tool rounds, two calls in parallel), ``long-history`` (earlier
  turns of the same chat, each a real LLM call) or ``handoff`` (a triage agent hands over to a
  specialist with a note);
- a **culprit** of one of four kinds, balanced over the corpus: a tool result (the terms tool or the
  user's own record), a retrieved document, a system-prompt line, or an earlier LLM output that
  invented the figure (a plan, a handoff note, an earlier answer, the agent's own tool request);
- **hard distractors**: the user's record (same entity, the answer restates it), a competing rule
  (same quantity, the neighbouring tier, another value), the same number in another unit (another
  quantity stated with the planted number), a paraphrase of the question, the agent's own tool
  requests, another quantity of the domain;
- an **answer** that repeats the planted (wrong) figure in one of several forms.

Stdlib only: the generator's workers import it inside the instrumentation virtualenvs.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHAPES = ("react", "rag", "multi-round", "long-history", "handoff")
CULPRITS = ("tool", "document", "system", "llm")
PER_DOMAIN = 7
DOCS_HEADER = "Knowledge-base excerpts:"


@dataclass
class Step:
    """One scripted model turn: text only (``calls`` empty) or a tool request."""

    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    role: str = ""  # what this output is: plan, handoff, history, lookup, policy, extra, answer


@dataclass
class Scenario:
    id: str
    domain: str
    split: str
    shape: str
    culprit_kind: str
    question: str
    system: list[str]  # paragraphs of the (final agent's) system prompt
    docs: list[dict[str, Any]]  # {"id", "content", "score"}
    history: list[tuple[str, str]]  # earlier (user, assistant) turns, each a real LLM call
    triage: Step | None  # the handoff note of the triage agent
    steps: list[Step]  # the final agent's turns, the last one the answer
    tools: dict[str, str]  # tool name -> its result text
    culprit: dict[str, Any]  # where the planted figure is (see ``_plant``)
    answer: str
    planted_text: str

    def as_json(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["triage"] = None if self.triage is None else self.triage.__dict__
        d["steps"] = [s.__dict__ for s in self.steps]
        return d


def _read(name: str) -> Any:
    return json.loads((HERE / "data" / name).read_text("utf-8"))


def _seed(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def _fmt(template: str, slots: dict[str, Any]) -> str:
    out = template.format(**slots)
    return out[0].upper() + out[1:] if out else out


def _value(rng: random.Random, lo: int, hi: int, avoid: set[int]) -> int:
    choices = [v for v in range(lo, hi + 1) if v not in avoid]
    if not choices:  # a narrow range: step outside it rather than repeat a figure
        choices = [v for v in range(hi + 1, hi + 10) if v not in avoid]
    return rng.choice(choices)


def build(seed: dict[str, Any], g: dict[str, Any], split: str, k: int, d_index: int) -> Scenario:
    """The k-th scenario of one domain."""
    sid = f"{seed['domain']}-{k + 1}"
    rng = random.Random(_seed(sid))
    n = d_index * PER_DOMAIN + k  # the scenario's place in the corpus: shapes and kinds rotate
    shape = SHAPES[n % len(SHAPES)]
    kind = CULPRITS[n % len(CULPRITS)]
    attrs = seed["attrs"]
    a = attrs[k % 3]
    b, c = (x for x in attrs if x is not a)
    record = seed["record"]
    person = next(iter(record["fields"].values()))
    base = {
        "org": seed["org"],
        "role": seed["role"],
        "tier": seed["tier"],
        "other": seed["other"],
        "subject": seed["subject"],
        "person": person,
        "id": record["id"],
        "specialist": f"{seed['domain'].replace('-', ' ')} specialist",
    }
    wrong = _value(rng, a["lo"], a["hi"], set())
    r2 = _value(rng, a["lo"], a["hi"], {wrong})
    rc = _value(rng, c["lo"], c["hi"], {wrong})

    def slots(attr: dict[str, Any], v: int, tier: str | None = None) -> dict[str, Any]:
        return {
            **base,
            "noun": attr["noun"],
            "unit": attr["unit"],
            "v": v,
            "tier": tier or seed["tier"],
        }

    def rule(attr: dict[str, Any], v: int, tier: str | None = None) -> str:
        return _fmt(rng.choice(g["rule"]), slots(attr, v, tier))

    planted_rule = rule(a, wrong)
    question = _fmt(a["q"], base)

    # the distractor facts, each to be carried by some source
    facts = {
        "competing": rule(a, r2, seed["other"]),
        "same-number": rule(b, wrong),
        "other-quantity": rule(c, rc),
    }
    carriers = ["document", "system", "tool"]
    where = {name: rng.choice(carriers) for name in facts}

    system = [_fmt(rng.choice(g["base_prompt"]), base)]
    docs: list[dict[str, Any]] = []
    tools: dict[str, str] = {}
    terms_tool = "get_terms"
    extra_tool = "get_notices"
    record_fields = dict(record["fields"])
    record_fields[record["arg"]] = record["id"]

    culprit: dict[str, Any]
    planted_text = planted_rule
    invented_where = ""
    if kind == "tool":
        if rng.random() < 0.5:
            record_fields[a["noun"].replace(" ", "_")] = f"{wrong} {a['unit']}"
            culprit = {"kind": "tool", "tool": record["tool"]}
        else:
            culprit = {"kind": "tool", "tool": terms_tool}
    elif kind == "document":
        culprit = {"kind": "document"}
    elif kind == "system":
        planted_text = _fmt(rng.choice(g["system_rule"]), {"rule": planted_rule})
        culprit = {"kind": "system", "text": planted_text}
    else:
        invented_where = {"handoff": "handoff", "long-history": "history"}.get(
            shape, rng.choice(["plan", "policy-thought"])
        )
        culprit = {"kind": "llm", "role": invented_where}

    def doc(text_rule: str, n: int) -> dict[str, Any]:
        title = _fmt(rng.choice(g["doc_title"]), slots(a, 0))
        extra = _fmt(rng.choice(g["doc_extra"]), base)
        body = _fmt(rng.choice(g["doc"]), {"title": title, "rule": text_rule, "extra": extra})
        return {"id": f"kb-{seed['domain']}-{n}", "content": body, "score": 0.0}

    terms_lines: list[str] = []
    for name, text in facts.items():
        if where[name] == "document":
            docs.append(doc(text, len(docs) + 1))
        elif where[name] == "system":
            system.append(text)
        else:
            terms_lines.append(text)
    if rng.random() < 0.6:
        docs.append(
            {
                "id": f"kb-{seed['domain']}-faq",
                "content": _fmt(rng.choice(g["paraphrase"]), slots(a, 0)),
                "score": 0.0,
            }
        )
    if kind == "document":
        planted_doc = doc(planted_rule, len(docs) + 1)
        docs.insert(rng.randrange(len(docs) + 1), planted_doc)
        planted_text = planted_doc["content"]
        culprit["id"] = planted_doc["id"]
    if kind == "system":
        system.insert(1 + rng.randrange(len(system)), planted_text)
    if culprit.get("tool") == terms_tool:
        terms_lines.insert(rng.randrange(len(terms_lines) + 1), planted_rule)
    if not terms_lines:
        terms_lines.append(rule(c, rc, seed["other"]))
    terms_text = " ".join(terms_lines)
    tools[terms_tool] = _fmt(
        rng.choice(g["policy_result"]),
        {"tier": seed["tier"], "rule": terms_text, "org": seed["org"]},
    )
    if culprit.get("tool") == terms_tool:
        planted_text = tools[terms_tool]
    tools[record["tool"]] = json.dumps(record_fields)
    if culprit.get("tool") == record["tool"]:
        planted_text = tools[record["tool"]]
    for i, dd in enumerate(docs):
        dd["score"] = round(0.91 - 0.04 * i, 2)
    # documents only reach an agent that retrieves: a shape without retrieval gets one anyway
    # when it holds the planted document or distractors (a retrieval step before the loop)

    invented = _fmt(rng.choice(g["invented"]), slots(a, wrong))
    if invented_where:
        planted_text = invented

    lookup = Step(
        _fmt(rng.choice(g["thought_lookup"]), base),
        [(record["tool"], {record["arg"]: record["id"]})],
        "lookup",
    )
    policy_thought = (
        invented
        if invented_where == "policy-thought"
        else _fmt(rng.choice(g["thought_policy"]), slots(a, 0))
    )
    if invented_where != "policy-thought" and rng.random() < 0.5:
        policy_thought = _fmt(rng.choice(g["thought_paraphrase"]), slots(a, 0))
    policy = Step(
        policy_thought, [(terms_tool, {"plan": seed["tier"], "topic": a["noun"]})], "policy"
    )
    steps: list[Step] = []
    if invented_where == "plan":
        steps.append(Step(invented, [], "plan"))
    history: list[tuple[str, str]] = []
    triage: Step | None = None
    if shape == "rag":
        # no terms look-up unless the terms tool is the culprit or the agent's request invented it
        needs_terms = culprit.get("tool") == terms_tool or invented_where == "policy-thought"
        steps += [lookup, policy] if needs_terms else [lookup]
    elif shape == "multi-round":
        tools[extra_tool] = json.dumps(
            {"notices": [rule(c, rc, seed["other"]), f"{seed['org']} offices close at 18:00."]}
        )
        both = Step(policy.text, [policy.calls[0], (extra_tool, {"topic": c["noun"]})], "policy")
        tools["check_eligibility"] = json.dumps(
            {record["arg"]: record["id"], "tier": seed["tier"], "eligible": True}
        )
        check = Step("", [("check_eligibility", {record["arg"]: record["id"]})], "extra")
        steps += [lookup, both, check]
    elif shape == "long-history":
        small = g["history_small"]
        history.append(tuple(_fmt(x, base) for x in small[0]))  # type: ignore[arg-type]
        hq = _fmt(rng.choice(g["history_q"]), slots(b, 0))
        history.append(
            (hq, _fmt(rng.choice(g["history_a"]), slots(b, _value(rng, b["lo"], b["hi"], {wrong}))))
        )
        history.append(tuple(_fmt(x, base) for x in small[1]))  # type: ignore[arg-type]
        if invented_where == "history":
            hq2 = _fmt(rng.choice(g["history_q"]), slots(a, 0))
            ha2 = _fmt(rng.choice(g["history_a"]), slots(a, wrong))
            history.append((hq2, ha2))
            planted_text = ha2
        history.append(tuple(_fmt(x, base) for x in small[2]))  # type: ignore[arg-type]
        steps += [lookup, policy]
    elif shape == "handoff":
        fact = (
            invented
            if invented_where == "handoff"
            else _fmt(rng.choice(g["handoff_plain"]), slots(a, 0))
        )
        note = _fmt(rng.choice(g["handoff_note"]), {**slots(a, 0), "fact": fact})
        triage = Step(note, [], "handoff")
        if invented_where == "handoff":
            planted_text = note
        steps += [lookup, policy]
    else:  # react
        steps += [lookup, policy]
    answer = _fmt(rng.choice(g["answer"]), slots(a, wrong))
    steps.append(Step(answer, [], "answer"))
    return Scenario(
        id=sid,
        domain=seed["domain"],
        split=split,
        shape=shape,
        culprit_kind=kind,
        question=question,
        system=system,
        docs=docs,
        history=history,
        triage=triage,
        steps=steps,
        tools=tools,
        culprit=culprit,
        answer=answer,
        planted_text=planted_text,
    )


def split_of() -> dict[str, str]:
    s = json.loads((HERE / "splits.json").read_text("utf-8"))
    return {d: name for name in ("train", "dev", "test") for d in s[name]}


def every() -> list[Scenario]:
    """Every scenario, domain by domain in the seeds' order."""
    g = _read("grammar.json")
    splits = split_of()
    out = []
    for i, seed in enumerate(_read("seeds.json")["domains"]):
        for k in range(PER_DOMAIN):
            out.append(build(seed, g, splits[seed["domain"]], k, i))
    return out


if __name__ == "__main__":
    scs = every()
    print(len(scs), "scenarios,", len({s.domain for s in scs}), "domains")
    for s in scs[:3]:
        print(json.dumps(s.as_json(), indent=1))
