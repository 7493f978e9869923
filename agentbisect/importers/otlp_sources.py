"""The synthesizer's source rules replayed over counts and step ids (``otlp_aggregate``'s core).

``synthesize._Builder`` splits each LLM call's input into sources and commits every source it
has not seen (system-instruction parts, user messages, tool results matched by call id …); the
aggregate shows only what that decides: how many commits there are, which steps have one, and
how many sources were matched by content or by structure only (two flags). ``Sources`` keeps
the builder's matching state and applies the same rules in the same order, method for method
(``llm_start`` ↔ ``_sources``, ``llm_end`` ↔ ``_llm_end``, ``tool_end`` ↔ ``_tool_end`` and
``_asker``, ``flush_retrievals`` ↔ ``_flush_retrievals``), without building the recording.

A ReAct loop repeats the previous call's messages in every call. A message whose outcome cannot
change any more (matched by id; see ``_message``) is not looked at again while it stays in the
window: the new input is compared with the previous one (``Raw`` equality, in C), and only the
messages that were not there, or were not settled, are handled. Reads by id are not counted, so
skipping them changes nothing — except that a later counted read of the same key in the same
call is a repeat; the skipped keys are recovered before any counted read (``_materialize``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from agentbisect.importers.otlp_typed import MESSAGE, MESSAGES, RAWS, STR
from agentbisect.importers.texts import (
    MIN_DOC_CHARS,
    REDACTED,
    as_text,
    clean,
    instruction_parts,
    split_paragraphs,
    text_of,
)

_SYSTEM_ROLES = ("system", "developer")


class Bail(Exception):
    """Something this path does not reproduce exactly: take the full path."""


def raw_text(raw: Any) -> str:
    """``as_text`` of a value kept as raw JSON (``UNSET``: the key was absent, so ``None``)."""
    if raw is msgspec.UNSET:
        return ""
    return as_text(msgspec.json.decode(raw))


def paragraphs(text: str) -> tuple[str, ...]:
    """``split_paragraphs`` as a tuple (a memo key)."""
    return tuple(split_paragraphs(text))


class Msg:
    """One message in the "parts" form (``conventions.Message``), read from its typed decode
    as far as it is needed: most messages are only asked for their role and ids."""

    __slots__ = ("_parts", "_text", "m", "role")

    def __init__(self, m: Any) -> None:
        if m.parts is msgspec.UNSET or m.message is not msgspec.UNSET:
            raise Bail  # (the generic reading: another form)
        role = m.role
        self.role: str = role if role and role != REDACTED else "user"
        self.m = m
        self._parts: list[tuple[str, str, str, Any]] | None = None
        self._text: str | None = None

    @property
    def parts(self) -> list[tuple[str, str, str, Any]]:
        """``(kind, id, name, value)``: a text's text, a tool call's raw arguments, a tool
        result's raw response (turned into text on first use)."""
        if self._parts is None:
            parts: list[tuple[str, str, str, Any]] = []
            for p in self.m.parts:
                kind = p.type
                if kind == "tool_call":
                    parts.append(("tool_call", text_of(p.id), text_of(p.name), p.arguments))
                elif kind == "tool_call_response":
                    resp = p.result if p.response is msgspec.UNSET else p.response
                    parts.append(("tool_result", text_of(p.id), "", resp))
                else:
                    content = p.content
                    if content is msgspec.UNSET:
                        content = "" if p.text is msgspec.UNSET else p.text
                    parts.append(("text", "", "", text_of(content)))
            self._parts = parts
        return self._parts

    def part_text(self, i: int) -> str:
        kind, pid, name, value = self.parts[i]
        if kind == "text":
            return str(value)
        if kind == "tool_call":
            return f"{name}({raw_text(value)})"
        if not isinstance(value, str):
            value = raw_text(value)
            self.parts[i] = (kind, pid, name, value)
        return value

    def text(self) -> str:
        if self._text is None:
            self._text = "\n".join(self.part_text(i) for i in range(len(self.m.parts)))
        return self._text

    def call_ids(self) -> list[str]:
        return [p.id for p in self.m.parts if p.type == "tool_call" and p.id and p.id != REDACTED]


def system_parts(value: str) -> tuple[str, ...]:
    """``conventions._system_parts`` of a JSON string."""
    parts = instruction_parts(value)
    if parts is None:
        raise Bail  # (a malformed-attribute flag on the full path)
    return parts


def tool_result(result: str) -> tuple[str, str]:
    """(text, call id found in it) of a tool span's result (``conventions._tool``)."""
    if result[:1] != "{":
        return result, ""
    import json  # (the reference reading uses json.loads: its idea of valid JSON)

    try:
        parsed = json.loads(result)
    except ValueError:
        return result, ""
    if not isinstance(parsed, dict):
        return result, ""
    kwargs = parsed.get("kwargs")
    inner: dict[str, Any] = kwargs if isinstance(kwargs, dict) else parsed
    if isinstance(inner.get("tool_call_id"), str) and "content" in inner:
        return as_text(inner["content"]), inner["tool_call_id"]
    return result, ""


class Doc:
    __slots__ = ("by", "consumed", "content", "id", "step")

    def __init__(self, doc_id: str, content: str | None, step: str, by: str) -> None:
        self.id = doc_id
        self.content = content
        self.step = step
        self.consumed = False
        self.by = by


# A message's outcome, kept for the next call: settled (skip it while it stays in the window),
# or to be handled again.
_SETTLED, _AGAIN = True, False


class Sources:
    """``synthesize._Builder``'s matching state, and the commits it makes (step ids, in order)."""

    def __init__(self) -> None:
        self.commits: list[str] = []
        self.typed = 0  # typed events emitted for sources (context.injected)
        self.by_content = 0
        self.by_structure = 0
        self.uncaptured = 0
        self.last_llm: str | None = None
        self.llm_by_call_id: dict[str, str] = {}
        self.llm_by_tool_name: dict[str, str] = {}
        self.tool_calls_by_step: dict[str, list[tuple[str, str]]] = {}  # (id, name) asked
        # each LLM step's output (raw, read again only if llm_by_text is asked for)
        self.ended_llms: list[tuple[str, Any]] = []
        self.llm_by_text: dict[str, str] = {}
        self.llm_text_done = 0
        self.tool_by_id: dict[str, str] = {}
        self.tool_results: list[tuple[str, str]] = []  # tool_by_text, filled on first use
        self.tool_by_text: dict[str, str] = {}
        self.tool_text_done = 0
        self.tool_keys: dict[str, str] = {}
        # The tools that read the latest LLM output (``asked_tools[last_llm]``: no other entry
        # is ever read again, since an LLM step is asked for only once it has ended).
        self.last_asked: list[str] = []
        self.adopted_ids: set[str] = set()
        self.system_parts: dict[str, str] = {}
        self.part_ids: set[str] = set()
        self.messages: set[tuple[int, str, str]] = set()
        self.docs: list[Doc] = []
        self.pending: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.doc_parts: set[str] = set()
        # the reader being handled: keys it read (only those whose reads can be counted)
        self.reader_keys: set[str] = set()
        self.skipped: list[Msg] = []  # settled messages not handled again in this call
        # the previous call's input: its raw messages, parsed, and their outcomes
        self.prev_raws: list[Any] = []
        self.prev_msgs: list[Msg] = []
        self.prev_settled: list[bool] = []
        self.prev_has_system = False
        self.prev_system: Any = None
        self.system_memo: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self.system_done = False  # every part of prev_system is committed

    # ------------------------------------------------------------- reads

    def read(self, key: str, by: str) -> None:
        """``_Builder._read`` of a key whose read can be counted (out:, tool:, doc:)."""
        if by == "id":
            self.reader_keys.add(key)
            return
        if self.skipped:
            self._materialize()
        keys = self.reader_keys
        if key not in keys:
            keys.add(key)
            if by == "content":
                self.by_content += 1
            elif by == "structure":
                self.by_structure += 1

    def _materialize(self) -> None:
        """Add the keys the skipped (settled) messages read to the reader's keys."""
        skipped, self.skipped = self.skipped, []
        for m in skipped:
            if m.role == "assistant":
                for call_id in m.call_ids():
                    llm = self.llm_by_call_id.get(call_id)
                    if llm is not None:
                        self.reader_keys.add(f"out:{llm}")
                        break
            elif m.role == "tool":
                for kind, pid, _, _ in m.parts:
                    if kind == "tool_result":  # (settled: every one matched by id)
                        self.reader_keys.add(self.tool_keys[self.tool_by_id[pid]])

    # ------------------------------------------------------------- LLM calls

    def llm_start(self, step: str, index: int, system: Any, inputs: Any, has_outputs: bool) -> None:
        """``_Builder._sources`` (``system``, ``inputs``: the content values, or None)."""
        self.reader_keys = set()
        self.skipped = []
        if system is None and inputs is None and not has_outputs:
            self.flush_retrievals([])
            self.uncaptured += 1
            self.structural_reads()
            return
        raws = RAWS.decode(STR.decode(inputs.stringValue)) if inputs is not None else []
        # The messages the previous input ended with keep their parsed form and outcome.
        prev = self.prev_raws
        skip = 0
        if prev and raws:
            try:
                j = raws.index(prev[-1])
            except ValueError:
                j = -1
            k = len(prev) - 1 - j
            if j >= 0 and k >= 0 and raws[: j + 1] == prev[k:]:
                skip = j + 1
        if skip:
            k = len(prev) - skip
            msgs = self.prev_msgs[k:]
            settled = self.prev_settled[k:]
            has_system_msg = self.prev_has_system and any([m.role in _SYSTEM_ROLES for m in msgs])
        else:
            msgs, settled, has_system_msg = [], [], False
        decode = MESSAGE.decode
        for raw in raws[skip:]:
            m = Msg(decode(raw))
            msgs.append(m)
            settled.append(_AGAIN)
            if m.role in _SYSTEM_ROLES:
                has_system_msg = True
        self.prev_raws, self.prev_msgs, self.prev_settled = raws, msgs, settled
        self.prev_has_system = has_system_msg
        if system is not None:
            texts, parts = self._system(system.stringValue)
        else:
            texts, parts = (), ()
        if has_system_msg:
            system_texts = list(texts)
            system_texts += [m.text() for m in msgs if m.role in _SYSTEM_ROLES]
            parts = tuple(p for text in system_texts for p in paragraphs(text))
        if self.pending:
            lines = [
                ln for m in msgs if m.role not in _SYSTEM_ROLES for ln in m.text().splitlines()
            ]
            self.doc_parts |= self.flush_retrievals([*parts, *lines])
        if has_system_msg or not self.system_done:
            for ordinal, part in enumerate(parts, start=1):
                if part not in self.doc_parts and part not in self.system_parts:
                    self._system_part(part, ordinal, index)
            # Every instruction part is now committed or a document, and both sets only grow:
            # the same instructions in the next call commit nothing (skipped then).
            self.system_done = system is not None
        all_text = "\n".join(m.text() for m in msgs) if self.docs else ""
        first = 0
        if skip and all(settled[:skip]):  # (the usual case: the window moved on)
            self.skipped = msgs[:skip]
            first = skip
        for i in range(first, len(msgs)):
            if i < skip and settled[i]:
                self.skipped.append(msgs[i])
                continue
            settled[i] = self._message(i, msgs[i], index)
        if self.docs:
            keep = []
            for doc in self.docs:
                content = doc.content
                if content and content in all_text:
                    self.read(f"doc:{doc.id}", doc.by)
                    doc.consumed = True
                    keep.append(doc)
                elif not content and not doc.consumed:
                    self.read(f"doc:{doc.id}", "structure")
                    doc.consumed = True
                elif not doc.consumed:
                    keep.append(doc)
            self.docs = keep

    def _system(self, raw: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(instruction parts, their paragraphs) of ``gen_ai.system_instructions``; the same
        value as the previous call's is not read again."""
        if self.prev_system is not None and raw == self.prev_system:
            return self.system_memo
        texts = system_parts(STR.decode(raw))
        self.prev_system = raw
        self.system_memo = (texts, tuple(p for t in texts for p in paragraphs(t)))
        self.system_done = False
        return self.system_memo

    def _system_part(self, text: str, ordinal: int, index: int) -> None:
        part_id = f"system-instructions.p{ordinal}"
        n = 1
        while part_id in self.part_ids:
            n += 1
            part_id = f"system-instructions.p{ordinal}.v{n}"
        self.part_ids.add(part_id)
        step = f"{part_id}#{index}"
        self.system_parts[text] = step
        self.commits.append(step)
        self.typed += 1  # context.injected

    def _message(self, i: int, m: Msg, index: int) -> bool:
        """Handle one non-system message; whether its outcome is settled (``_stable``)."""
        role = m.role
        if role in _SYSTEM_ROLES:
            return _AGAIN
        if role == "assistant":
            return self._assistant(i, m, index)
        if role == "tool":
            return self._tool_message(i, m, index)
        self._plain(i, role, m.text(), index)
        return _AGAIN

    def _plain(self, i: int, role: str, text: str, index: int) -> None:
        key = (i, role, text)
        if key not in self.messages:
            self.messages.add(key)
            self.commits.append(f"message:{clean(role)}.{i}#{index}")

    def _assistant(self, i: int, m: Msg, index: int) -> bool:
        by_id = self.llm_by_call_id
        for call_id in m.call_ids():
            llm = by_id.get(call_id)
            if llm is not None:
                self.read(f"out:{llm}", "id")
                return _SETTLED  # (the map only grows: an id once known stays known)
        text = m.text().strip()
        if text:
            by_text = self.llm_by_text
            for step, raw in self.ended_llms[self.llm_text_done :]:
                outputs = MESSAGES.decode(STR.decode(raw.stringValue)) if raw is not None else []
                out = "\n".join(Msg(o).text() for o in outputs).strip()
                if out:
                    by_text[out] = step
            self.llm_text_done = len(self.ended_llms)
            llm = by_text.get(text)
            if llm is not None:
                self.read(f"out:{llm}", "content")
                return _AGAIN
        self._plain(i, "assistant", m.text(), index)
        return _AGAIN

    def _tool_message(self, i: int, m: Msg, index: int) -> bool:
        settled = _SETTLED
        for k, p in enumerate(m.m.parts):
            if p.type != "tool_call_response":
                continue
            pid = p.id if p.id and p.id != REDACTED else ""
            tool = self.tool_by_id.get(pid) if pid else None
            if tool is not None:
                if pid in self.adopted_ids:
                    self.read(self.tool_keys[tool], "content")
                    settled = _AGAIN
                else:  # (an id in tool_by_id is never adopted later)
                    self.read(self.tool_keys[tool], "id")
                continue
            settled = _AGAIN
            text = m.part_text(k)
            stripped = text.strip()
            if stripped:
                by_text = self.tool_by_text
                for result, step in self.tool_results[self.tool_text_done :]:
                    by_text[result.strip()] = step
                self.tool_text_done = len(self.tool_results)
                tool = by_text.get(stripped)
                if tool is not None:
                    self.read(self.tool_keys[tool], "content")
                    continue
            self._plain(i, "tool", text, index)
        return settled

    def structural_reads(self) -> None:
        last = self.last_llm
        if last is not None:
            self.read(f"out:{last}", "structure")
            for tool in self.last_asked:
                self.read(self.tool_keys[tool], "structure")
        for doc in self.docs:
            if not doc.consumed:
                self.read(f"doc:{doc.id}", "structure")
                doc.consumed = True
        self.docs = []

    def llm_end(self, step: str, outputs_raw: Any) -> int:
        """``_Builder._llm_end``; returns the number of tool calls the output asks for."""
        if outputs_raw is None:
            outputs: list[Any] = []
            calls: list[tuple[str, str]] = []
        else:
            outputs = MESSAGES.decode(STR.decode(outputs_raw.stringValue))
            outputs_: list[Any] = outputs
            for m in outputs:
                if m.parts is msgspec.UNSET or m.message is not msgspec.UNSET:
                    raise Bail  # (as Msg: another form)
            calls = [
                (text_of(p.id), text_of(p.name))
                for m in outputs_
                for p in m.parts
                if p.type == "tool_call"
            ]
        self.commits.append(step)
        self.last_llm = step
        if calls:
            self.tool_calls_by_step[step] = calls
            for pid, name in calls:
                if pid:
                    self.llm_by_call_id[pid] = step
                self.llm_by_tool_name[name] = step
        self.ended_llms.append((step, outputs_raw))
        self.last_asked = []
        return len(calls)

    # ------------------------------------------------------------- tools and retrieval

    def tool_end(self, step: str, name: str, call_id: str, result: str | None) -> None:
        """``_Builder._tool_end`` (and ``_asker``)."""
        if call_id and call_id in self.llm_by_call_id:
            asked: str | None = self.llm_by_call_id[call_id]
            by = "id"
        elif name in self.llm_by_tool_name:
            asked, by = self.llm_by_tool_name[name], "content"
        else:
            asked, by = self.last_llm, "structure"
        if not call_id and asked is not None:
            for pid, pname in self.tool_calls_by_step.get(asked, []):
                if pname == name and pid and pid not in self.tool_by_id:
                    call_id = pid
                    self.adopted_ids.add(pid)
                    break
        if asked is not None:
            self.reader_keys = set()
            self.skipped = []
            self.read(f"out:{asked}", by)
            if asked == self.last_llm:
                self.last_asked.append(step)
        self.commits.append(step)
        self.tool_keys[step] = f"tool:{call_id or step}"
        if call_id:
            self.tool_by_id.setdefault(call_id, step)
        if result:
            self.tool_results.append((result, step))

    def flush_retrievals(self, inputs: list[str]) -> set[str]:
        """``_Builder._flush_retrievals``: commit the pending retrievals; the input parts that
        turned out to be documents."""
        owned: set[str] = set()
        pending, self.pending = self.pending, []
        for step, docs in pending:
            for doc_id, content in docs:
                by = "content"
                if content is None:
                    for part in inputs:
                        if doc_id in part:
                            content, by = part, "id"
                            owned.add(part)
                            break
                elif len(content) >= MIN_DOC_CHARS:
                    owned.update(part for part in inputs if content in part)
                if content is not None:
                    owned.add(content)
                self.docs.append(Doc(doc_id, content, step, by))
                self.typed += 1  # context.injected
            self.commits.append(step)
        return owned
