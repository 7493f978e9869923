"""The option table's rows: each parameter of a command declared once, as an ``Arg``/``Opt`` row
(name, flags, value type, default, bounds, choices, metavar, help). The fast front end parses
argv with them (``cli.argv.parse``); ``cli.typer_app.command_of`` builds the typer command from
the same rows. The rows are plain data in ``core`` so that a message of any layer can name an
option by its row (``FORCE.flag``) instead of spelling it again. It imports no CLI framework, so
an ordinary command line never loads typer.

The value rules are typer's for the plain values they accept (a string; a decimal integer or
float within ``min``/``max``; an Enum member named exactly, or case-insensitively for
``--format``) and refuse everything else, which the fast front end then hands to typer so that
every error message is typer's own.
"""

from __future__ import annotations

import re
from enum import Enum, StrEnum
from typing import Any

# What typer and click would read the same way: plain decimal, no sign but '-', no spaces, no
# '_', no exponent; short enough to stay exact as a float.
# Patterns, not compiled ones: `re` compiles them on first use (most command lines have no number).
INT_RE = r"-?(?:0|[1-9][0-9]{0,17})"
FLOAT_RE = r"-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?"

NO = object()  # "not a plain value": typer decides, and words any error


def choice(enum: type[Enum], case_sensitive: bool, value: str) -> Any:
    """typer's choice rule: the first member whose value matches (casefolded when
    case-insensitive), else ``NO``."""
    want = value if case_sensitive else value.casefold()
    for member in enum:
        name = str(member.value)
        if (name if case_sensitive else name.casefold()) == want:
            return member
    return NO


def number(kind: type, value: str, lo: float | None, hi: float | None) -> Any:
    """``int``/``float`` of a plain decimal within ``[lo, hi]``, else ``NO``."""
    if not re.fullmatch(INT_RE if kind is int else FLOAT_RE, value):
        return NO
    got = kind(value)
    if (lo is not None and got < lo) or (hi is not None and got > hi):
        return NO
    return got


class Arg:
    """A positional argument (most commands take one; ``afp diff`` takes two, in order; a
    ``multiple`` one, last, takes one or more values, passed as a list: ``afp scan PATH...``)."""

    __slots__ = ("default", "help", "metavar", "multiple", "name", "required")

    def __init__(
        self, name: str, metavar: str, help: str, *, required: bool = True, multiple: bool = False
    ) -> None:
        self.name = name
        self.metavar = metavar
        self.help = help
        self.required = required
        self.multiple = multiple
        self.default = None


class Opt:
    """One option: a flag (``kind is bool``) or an option taking one value, maybe repeated."""

    __slots__ = (
        "case_sensitive",
        "default",
        "flags",
        "help",
        "kind",
        "max",
        "metavar",
        "min",
        "multiple",
        "name",
        "required",
    )

    def __init__(
        self,
        name: str,
        *flags: str,
        help: str,
        kind: Any = str,
        default: Any = None,
        metavar: str | None = None,
        min: float | None = None,
        max: float | None = None,
        multiple: bool = False,
        required: bool = False,
        case_sensitive: bool = True,
    ) -> None:
        self.name = name
        self.flags = flags
        self.help = help
        self.kind = kind
        self.default = False if kind is bool else default
        self.metavar = metavar
        self.min = min
        self.max = max
        self.multiple = multiple
        self.required = required
        self.case_sensitive = case_sensitive

    @property
    def flag(self) -> str:
        """The option's long spelling, for messages that name it."""
        return next(f for f in self.flags if f.startswith("--"))

    def replace(self, **changes: Any) -> Opt:
        """This option with some fields changed, its name and flags kept (a command that words a
        shared option's help its own way, or requires it)."""
        fields = {k: getattr(self, k) for k in self.__slots__ if k not in ("name", "flags")}
        return Opt(self.name, *self.flags, **{**fields, **changes})

    def value(self, text: str) -> Any:
        """The option's value for ``text`` as typer would pass it, or ``NO``."""
        if self.kind is str:
            return text
        if self.kind is int or self.kind is float:
            return number(self.kind, text, self.min, self.max)
        return choice(self.kind, self.case_sensitive, text)


FORMAT_FLAGS = ("--format", "-f")


def format_opt(enum: type[Enum], formats: str) -> Opt:
    """``--format/-f`` choosing among ``enum``'s members (``formats`` says which is the default)."""
    return Opt(
        "fmt", *FORMAT_FLAGS, kind=enum, case_sensitive=False, help=f"Output format. {formats}"
    )


# ``aggregate`` and ``genui-stats`` offer the same three formats with the same help.
REPORT_FORMATS = "table (default), json, or html (a self-contained page; with -o)."

FILE = Arg(
    "file",
    "FILE",
    "The run: an agentfootprint recording or capture, an OpenTelemetry trace (OTLP/JSON, its "
    "JSON Lines, the SDK console form, a span dump, Zipkin or Jaeger JSON) or a chat transcript; "
    "JSON or gzip, or - for stdin.",
)
JSON = Opt("as_json", "--json", kind=bool, help=f"Shorthand for {FORMAT_FLAGS[0]} json.")
VERBOSE = Opt("verbose", "--verbose", "-v", kind=bool, help="Say which shape was read, on stderr.")
TRACE_ID = Opt(
    "trace_id",
    "--trace-id",
    metavar="TRACE_ID",
    help="An input holding several traces (OpenTelemetry, a Langfuse or LangSmith export): "
    "analyse this one (default: the trace whose root ended last).",
)
LOGS = Opt(
    "logs",
    "--logs",
    metavar="FILE",
    multiple=True,
    help="OpenTelemetry log records exported to another file (OTLP/JSON, its JSON Lines, or the "
    "SDK console form); joined to their spans by trace and span id. Repeatable.",
)
OUTPUT = Opt(
    "output",
    "-o",
    "--output",
    metavar="FILE",
    help="Write the report to FILE (atomically) instead of stdout.",
)
FORCE = Opt("force", "--force", kind=bool, help="With -o: replace an existing regular file.")
# afp events and afp bisect: a long table on a terminal goes through the pager (render/pager.py)
NO_PAGER = Opt(
    "no_pager",
    "--no-pager",
    kind=bool,
    help="Print a long table straight to the terminal (default: through $AFP_PAGER, $PAGER or "
    "less, as git does; never in a pipe).",
)


class CommandSpec:
    """A command's name, help, its positional argument (or arguments, in order: ``afp diff``
    takes two runs) and its options, in declaration order (the order of the help and of the
    body's keyword arguments)."""

    __slots__ = ("arg", "args", "by_flag", "by_name", "help", "name", "options")

    def __init__(self, name: str, help: str, arg: Arg | tuple[Arg, ...], *options: Opt) -> None:
        self.name = name
        self.help = help
        self.args = arg if isinstance(arg, tuple) else (arg,)
        self.arg = self.args[0]
        self.options = options
        self.by_flag = {flag: opt for opt in options for flag in opt.flags}
        self.by_name = {opt.name: opt for opt in options}

    def flag(self, name: str) -> str:
        """The long flag of the option whose parameter is ``name`` (for messages)."""
        return self.by_name[name].flag

    def defaults(self) -> dict[str, Any]:
        """The keyword values of a call that gives no option (typer's values for absent ones)."""
        out: dict[str, Any] = {a.name: a.default for a in self.args}
        for opt in self.options:
            default = opt.default
            out[opt.name] = list(default) if isinstance(default, list) else default
        return out


# ------------------------------------------------------------ one command's options, named below
# The options of a single command that a library module names in a message (an analysis refusing
# a value, a renderer pointing at the option to use next). They are declared here, not in the
# command's module, because a library module may not import ``cli``; the command's table lists
# them in its place.

# afp events: the filters ``analyses.select`` reports as matching nothing
TYPES = Opt(
    "types",
    "--type",
    "-t",
    default=[],
    metavar="TYPE",
    multiple=True,
    help="Only these types; glob patterns such as 'llm.*'. Repeatable.",
)
STAGE = Opt("stage", "--stage", metavar="STEP_ID", help="Only events of this runtimeStageId.")
SUBFLOW_PATH = Opt(
    "path",
    "--path",
    metavar="SUBFLOW_PATH",
    help="Only events under this subflow path prefix, e.g. sf-tools or a/b.",
)
AT = Opt(
    "at",
    "--at",
    kind=float,
    metavar="COMMIT",
    help="Only the boundary events (entry and exit) of the ranges enclosing this commit position.",
)
# events' shorthand for its table format; here because genui-stats' TABLE (a database table's
# name) is another option with the same spelling, and a spelling is written in one file only
TABLE_FORMAT = Opt("table", "--table", kind=bool, help=f"Shorthand for {FORMAT_FLAGS[0]} table.")

# afp aggregate: the table renderer says what ALL shows; DRILL is resolved by analyses.aggregate
ALL = Opt(
    "show_all",
    "--all",
    kind=bool,
    help="Also show all-zero agent-internal rollups and every index range.",
)
DRILL = Opt(
    "drill",
    "--drill",
    metavar="GROUP_ID",
    help="Show the step strip inside this group: its id, the id without #N, or the name "
    "the index tree shows, when only one group has it.",
)


# afp record
class Detail(StrEnum):
    full = "full"
    lean = "lean"


DETAIL = Opt(
    "detail",
    "--detail",
    kind=Detail,
    default=Detail.full,
    help="full: domain events with content; lean: without content.",
)

# afp genui-stats: the database and day-range options the genui readers check
DB = Opt(
    "db",
    "--db",
    metavar="URL",
    help="Read the rows from a database instead: sqlite:///path.db (sqlite:////abs/path.db) "
    "or postgresql://user:pass@host/db (needs the [postgres] extra).",
)
TABLE = Opt(
    "table",
    "--table",
    metavar="NAME",
    help=f"Table to read with {DB.flag}. [default: genui_calls]",
)
QUERY = Opt(
    "query",
    "--query",
    metavar="SQL",
    help=f"A SELECT to read the rows with {DB.flag}, instead of a table. Columns map to fields "
    "by camelCase or snake_case name.",
)
FROM = Opt("from_day", "--from", metavar="YYYY-MM-DD", help="First UTC day to include (inclusive).")
TO = Opt("to_day", "--to", metavar="YYYY-MM-DD", help="Last UTC day to include (inclusive).")

# afp bisect: the trigger, the right answer and causal mode, which the reports and overviews
# name to their reader (bisect's other options: ``agentbisect.bisect.options``)
AT_STEP = Opt(
    "at_step",
    "--at-step",
    metavar="STEP_ID",
    help="Trigger: the runtimeStageId of the step that went wrong (afp aggregate lists them).",
)
AT_LLM = Opt(
    "at_llm",
    "--at-llm",
    kind=int,
    metavar="N",
    help="Trigger: the N-th LLM call (0-based; -1 = the last).",
)
EXPECTED = Opt(
    "expected",
    "--expected",
    metavar="TEXT|@FILE",
    help="The right answer: evidence scores become contrastive (what the two answers disagree on).",
)
# the bisect table: one screen by default; this row is named by the screen that points to it
DETAILS = Opt(
    "details",
    "--details",
    kind=bool,
    help="The table with everything: the run's ranking and slice, each suspect's step and "
    "signal scores, every passage, the evidence paths and the honesty flags in full.",
)
RERUN = Opt(
    "rerun",
    "--rerun",
    metavar="CMD",
    help="Causal mode: run CMD once per probe and seed (split like a shell, run without one).",
)
