"""One-off: write the Python scenario modules as the data files corpus.py reads, then check that
corpus.py reads back exactly the same scenarios and expected answers. Deleted with the modules."""

import dataclasses
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import expected  # noqa: E402
import splits  # noqa: E402

MODULES = {"main": "scenarios", **{k: k for k in splits.SPLITS if k != "main"}}


def source(s):  # only what differs from the defaults; thought and args in the order they happen
    out = {"planted": True} if s.planted else {}
    out["kind"] = s.kind
    if s.name:
        out["name"] = s.name
    if s.thought:
        out["thought"] = s.thought
    if s.args:
        out["args"] = s.args
    out["text"] = s.text
    return out


def about(doc):  # prose re-wrapped to one line per paragraph: JSON strings have no line length
    return "\n\n".join(" ".join(p.split("\n")) for p in doc.strip().split("\n\n"))


def dump(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


for split, scs in splits.SPLITS.items():
    mod = sys.modules[MODULES[split]]
    doc = mod.__doc__.split("\n\n")[0] if split == "main" else mod.__doc__
    scenarios = [
        {
            "id": sc.id,
            "domain": sc.domain,
            "question": sc.question,
            "sources": [source(s) for s in sc.sources],
            "answer": sc.answer,
        }
        for sc in scs
    ]
    dump(HERE / "scenarios" / f"{split}.json", {"about": about(doc), "scenarios": scenarios})
dump(HERE / "expected.json", {"about": about(expected.__doc__), "expected": expected.EXPECTED})

import corpus  # noqa: E402

assert list(corpus.SPLITS) == list(splits.SPLITS)
for split, scs in splits.SPLITS.items():
    new = corpus.SPLITS[split]
    assert len(new) == len(scs)
    for a, b in zip(scs, new, strict=True):
        assert dataclasses.asdict(a) == dataclasses.asdict(b), a.id
        assert [type(v) for s in a.sources for v in s.args.values()] == [
            type(v) for s in b.sources for v in s.args.values()
        ]
assert corpus.EXPECTED == expected.EXPECTED and list(corpus.EXPECTED) == list(expected.EXPECTED)
assert [(sc.id, sp) for sc, sp in corpus.EVERY] == [(sc.id, sp) for sc, sp in splits.EVERY]
print("identical:", {k: len(v) for k, v in corpus.SPLITS.items()}, len(corpus.EXPECTED), "expected")
