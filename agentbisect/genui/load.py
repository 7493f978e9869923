"""Read genui rows from a file, ``-`` or gzip: a JSON array or JSON Lines of ``GenuiCallRow``.

The happy path is msgspec over the buffer (``decode_rows``: one call; ``decode_columns``: one call
per chunk of JSON Lines, each chunk turned into columns and dropped before the next). Only when
decoding fails do we go back and find the line of the first bad row, so that the error reads
``FILE:LINE: field: problem``.
"""

from __future__ import annotations

import re

import msgspec

from agentbisect.core.budget import check_values
from agentbisect.core.errors import InputError
from agentbisect.core.inputbytes import read_input
from agentbisect.genui.columns import CHUNK_ROWS, Columns, ColumnsBuilder, RowOutOfRange
from agentbisect.schema.genui import GenuiCallRow

_ROW = msgspec.json.Decoder(GenuiCallRow)
_ARRAY = msgspec.json.Decoder(list[GenuiCallRow])
_RAW_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])
_NON_BLANK = re.compile(rb"[^ \t\r\n]")
_BOM = b"\xef\xbb\xbf"
WHAT = "genui rows (a JSON array or JSON Lines of GenuiCallRow objects)"
# JSON Lines bytes decoded at a time: a few hundred typical rows, so that each chunk's row objects
# are still in cache when ColumnsBuilder reads them (see genui.columns). Chunks end at a newline,
# and a row never spans lines, so chunking cannot change what decodes.
CHUNK_BYTES = 1 << 18


def field_and_problem(error: msgspec.ValidationError) -> tuple[str, str]:
    """msgspec's ``problem - at `$[3].step``` → ``("step", "expected int, got str")``."""
    text = str(error)
    match = re.fullmatch(r"(?s)(.*?)(?: - at `\$([^`]*)`)?", text)
    assert match is not None
    problem, path = match.group(1), match.group(2) or ""
    field = re.sub(r"^\[\d+\]", "", path).lstrip(".")
    missing = re.fullmatch(r"Object missing required field `([^`]*)`", problem)
    if missing:
        return (f"{field}.{missing.group(1)}" if field else missing.group(1)), "missing"
    if not field:
        field = "row"
    problem = problem.replace("`", "")
    if problem.startswith("Expected datetime with a timezone component"):
        problem = "naive timestamp: it needs Z or an offset such as +02:00"
    elif problem.startswith("Invalid RFC3339 encoded datetime"):
        problem = "not an RFC 3339 timestamp (e.g. 2026-07-20T10:00:01.000Z)"
    elif problem.startswith("Invalid enum value"):
        allowed = {
            "outcome": '"ok" or "error"',
            "validity": '"first_try", "retried" or "failed"',
        }.get(field)
        problem = "unknown value" + problem[len("Invalid enum value") :]
        if allowed:
            problem += f" (expected {allowed})"
    elif field == "row" and problem.startswith("Expected object"):
        problem = "expected a JSON object" + problem[len("Expected object") :]
    return field, problem[:1].lower() + problem[1:]


_TOO_DEEP = "the row nests too deeply (a row is one flat JSON object)"


def _line_of_row(data: bytes, shape: str, k: int) -> int:
    """The line on which row ``k`` (0-based) starts (only called once something failed)."""
    data = bytes(data)
    if shape == "lines":
        seen = -1
        for number, line in enumerate(data.split(b"\n"), start=1):
            if _NON_BLANK.search(line):
                seen += 1
                if seen == k:
                    return number
        return 1
    return _line_of(data, _element_span(data, _RAW_ARRAY.decode(data), k)[0])


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _element_span(data: bytes, elements: list[msgspec.Raw], k: int) -> tuple[int, int]:
    """Where element ``k`` of a top-level array (decoded as ``elements``) lies in ``data``."""
    start = end = 0
    for raw in elements[: k + 1]:
        start = data.find(bytes(raw), end)
        end = start + len(raw)
    return start, end


def _decode_error(name: str, line: int, error: msgspec.DecodeError, hint: str = "") -> InputError:
    problem = str(error).replace("JSON is malformed: ", "")
    return InputError(f"{name}:{line}", f"not valid JSON: {problem}{hint}")


def _locate_in_lines(name: str, data: bytes) -> InputError:
    """The error of the first bad line of JSON Lines (only called once decoding has failed)."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not _NON_BLANK.search(line):
            continue
        try:
            _ROW.decode(line)
        except RecursionError:
            return InputError(f"{name}:{number}", _TOO_DEEP)
        except msgspec.ValidationError as exc:
            field, problem = field_and_problem(exc)
            return InputError(f"{name}:{number}", f"{field}: {problem}")
        except msgspec.DecodeError as exc:
            hint = " (JSON Lines needs one complete row per line)"
            return _decode_error(name, number, exc, hint)
    return InputError(name, f"could not be read as {WHAT}")


def _locate_in_array(name: str, data: bytes, error: msgspec.ValidationError) -> InputError:
    """Map ``$[k].field`` of a failed array decode to the line of that row (and field)."""
    field, problem = field_and_problem(error)
    match = re.search(r"at `\$\[(\d+)\]", str(error))
    line = 1
    if match:
        # well-formed: the failure was a validation error
        start, pos = _element_span(data, _RAW_ARRAY.decode(data), int(match.group(1)))
        key = data.find(b'"' + field.split(".")[0].encode() + b'"', start, pos)
        line = _line_of(data, key if key >= 0 else start)
    return InputError(f"{name}:{line}", f"{field}: {problem}")


def _shape(name: str, data: bytes) -> tuple[bytes, str | None]:
    """``(data without a BOM, "array" | "lines" | None for no rows)``: the first non-blank byte
    decides (spec §1). ``data`` may be any bytes-like object with ``find``."""
    if data[: len(_BOM)] == _BOM:
        data = bytes(data[len(_BOM) :])
    first = _NON_BLANK.search(data)
    if first is None:
        return data, None  # an empty file is zero rows, not an error
    if b"\x00" in data[:4096]:
        raise InputError(name, f"binary data; expected {WHAT} (or gzip of it)")
    start = first.start()
    if data[start] == ord("{"):
        _refuse_recording(name, data, start)  # one line's keys: cheap next to the rows
    return data, "array" if data[start] == ord("[") else "lines"


_RECORDING_KEYS = frozenset(
    {
        "snapshot",
        "events",
        "structure",
        "format",
        "recording",
        "commitLog",
        "flow",
        "typed",
        "commit",
        "afp",
    }
)


def _refuse_recording(name: str, data: bytes, start: int) -> None:
    """An agent recording or capture handed to genui-stats: say so instead of 'toolCallId:
    missing' on line 1."""
    end = data.find(b"\n", start)
    line = bytes(data[start : len(data) if end < 0 else end])
    try:
        keys = msgspec.json.decode(line, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return  # not one object per line: the row decoder names the problem
    if keys.keys() & _RECORDING_KEYS:
        raise InputError(
            name,
            "this is an agent recording (or capture), not GenuiCallRow rows: read it with "
            "afp events, afp aggregate or afp bisect",
        )


def _decode_array(name: str, data: bytes) -> list[GenuiCallRow]:
    try:
        return _ARRAY.decode(data)
    except RecursionError:
        raise _deep_in_array(name, data) from None
    except msgspec.ValidationError as exc:
        try:
            located = _locate_in_array(name, data, exc)
        except RecursionError:  # finding the row means decoding it again
            located = _deep_in_array(name, data)
        except msgspec.DecodeError as bad:
            # A row of the wrong type ahead of broken JSON (``[0``): the typed decode stopped at
            # the row, the rows cannot be found in JSON that does not parse; it is not JSON.
            located = _malformed(name, data, bad)
        raise located from None
    except msgspec.DecodeError as exc:
        raise _malformed(name, data, exc) from None


def _malformed(name: str, data: bytes, error: msgspec.DecodeError) -> InputError:
    """The error of an array that is not valid JSON, at the line of the byte msgspec names."""
    match = re.search(r"\(byte (\d+)\)", str(error))
    return _decode_error(name, _line_of(data, int(match.group(1))) if match else 1, error)


def _deep_in_array(name: str, data: bytes) -> InputError:
    """The line of the first element of an array too deeply nested to decode."""
    try:
        elements = _RAW_ARRAY.decode(data)
    except RecursionError:
        return InputError(name, _TOO_DEEP)
    except msgspec.DecodeError as exc:
        return _malformed(name, data, exc)
    pos = 0
    for raw in elements:
        pos = data.find(bytes(raw), pos)
        try:
            _ROW.decode(raw)
        except RecursionError:
            return InputError(f"{name}:{_line_of(data, pos)}", _TOO_DEEP)
        except msgspec.MsgspecError:
            pass
        pos += len(raw)
    return InputError(name, _TOO_DEEP)


def decode_columns(name: str, data: bytes) -> Columns:
    """The columns of a JSON array or JSON Lines of rows; the first non-blank byte decides
    (spec §1)."""
    data, shape = _shape(name, data)
    try:
        return _columns(name, data, shape)
    except RowOutOfRange as exc:
        line = _line_of_row(data, shape or "lines", exc.index)
        raise InputError(f"{name}:{line}", f"{exc.field}: {exc.problem}") from None


def _columns(name: str, data: bytes, shape: str | None) -> Columns:
    builder = ColumnsBuilder()
    if shape == "array":
        check_values(name, data, WHAT)
        rows = _decode_array(name, bytes(data))
        for start in range(0, len(rows), CHUNK_ROWS):
            builder.add(rows[start : start + CHUNK_ROWS])
    elif shape == "lines":
        view, size, start = memoryview(data), len(data), 0
        try:
            while start < size:
                end = data.find(b"\n", min(start + CHUNK_BYTES, size - 1))
                end = size if end < 0 else end + 1
                builder.add(_ROW.decode_lines(view[start:end]))
                start = end
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            # Earlier chunks decoded, so the first bad line of the file is in this chunk.
            raise _locate_in_lines(name, bytes(data)) from None
    return builder.build()


def load_columns(path: str) -> tuple[str, Columns]:
    """``(display name, columns of the rows)`` of a path, ``-`` or gzip; an empty file is zero
    rows, not an error (spec §4.7)."""
    # (JSON Lines are decoded a chunk at a time; an array whole, so it is checked in _columns)
    name, data, _ = read_input(path, WHAT, allow_empty=True, whole=False)
    return name, decode_columns(name, data)


__all__ = ["decode_columns", "field_and_problem", "load_columns"]
