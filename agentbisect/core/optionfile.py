"""Files named by options (``afp bisect``'s control deps and missing context, ``@FILE`` texts).

They are user input like any recording, so they take the same road: the bounded reader (size cap,
gzip, UTF-8 BOM accepted, UTF-16/32 named), and JSON decoding on the deep-stack thread with the
recording's depth limit, so that a file nested 50,000 deep is an error message, not a segfault.
"""

from __future__ import annotations

from typing import Any

import msgspec

from agentbisect.core.errors import InputError
from agentbisect.core.inputbytes import read_input


def _decode_any(name: str, data: bytes) -> Any:
    from agentbisect.core.deep import MAX_DEPTH

    try:
        return msgspec.json.decode(data)
    except RecursionError:
        raise InputError(name, f"JSON nests deeper than {MAX_DEPTH} levels") from None
    except msgspec.DecodeError as exc:
        msg = str(exc).replace("JSON is malformed: ", "")
        if "truncated" in msg:
            raise InputError(name, "JSON ends early (truncated or half-written file)") from None
        raise InputError(name, f"not valid JSON ({msg})") from None


def read_json_option(path: str, option: str, what: str) -> Any:
    """The JSON value in the file ``path`` given to ``option``; ``InputError`` names what failed.

    ``what`` says what the file should hold, e.g. ``'a JSON object {"available", "sent"}'``.
    """
    from agentbisect.core.deep import run_deep

    name, data, _ = read_input(path, f"{what} ({option})")
    return run_deep(_decode_any, name, data)


def read_text_option(path: str, option: str) -> str:
    """The UTF-8 text in the file ``path`` (``@FILE`` of ``option``), a leading BOM dropped."""
    name, data, _ = read_input(path, f"the text for {option} @FILE", allow_empty=True, text=True)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            name,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"{option} @FILE needs the text as UTF-8",
        ) from None
