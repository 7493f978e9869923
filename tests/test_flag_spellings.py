"""One declaration per option: a flag's spelling (``--max-ablations``) is written in one package
file only, the one whose row declares it. Every help text, message and honesty note that
mentions another option takes its spelling from that row (``Opt.flag``), so renaming a flag is
a one-line change and no message can go on naming the old spelling."""

from __future__ import annotations

import re

from agentbisect.cli import HELP_FLAGS, MODULES, ROOT_OPTIONS, spec_of
from tests.conftest import ROOT

PKG = ROOT / "agentbisect"


def declared_long_flags() -> set[str]:
    """Every long flag afp declares: each command's table and the root options."""
    rows = [*ROOT_OPTIONS, *(opt for name in MODULES for opt in spec_of(name).options)]
    flags = {flag for row in rows for flag in row.flags} | set(HELP_FLAGS)
    return {flag for flag in flags if flag.startswith("--")}


def files_spelling(flag: str, sources: dict[str, str]) -> list[str]:
    """The package files that write ``flag`` (``--at`` is not found in ``--at-llm``)."""
    spelled = re.compile(rf"(?<![\w-]){re.escape(flag)}(?![\w-])")
    return sorted(name for name, text in sources.items() if spelled.search(text))


def test_the_scan_finds_a_spelling_and_only_a_whole_one() -> None:
    sources = {"a.py": 'X = "--at-llm"', "b.py": "# --at 12", "c.py": "x--at --atom"}
    assert files_spelling("--at", sources) == ["b.py"]
    assert files_spelling("--at-llm", sources) == ["a.py"]


# Another tool's option of the same spelling, named in a message about that tool (not afp's):
# langsmith-fetch's own --format, in the refusal of its pretty output.
FOREIGN = {("--format", "importers/langsmith.py")}


def test_every_flag_is_spelled_in_one_file_only() -> None:
    sources = {str(p.relative_to(PKG)): p.read_text() for p in PKG.rglob("*.py")}
    flags = declared_long_flags()
    assert {"--max-ablations", "--at-llm", "--json", "--force", "--debug", "--help"} <= flags
    spelled = {
        flag: [f for f in files_spelling(flag, sources) if (flag, f) not in FOREIGN]
        for flag in sorted(flags)
    }
    assert {flag: files for flag, files in spelled.items() if len(files) != 1} == {}


def test_each_table_declares_an_option_once() -> None:
    # by_flag and by_name would silently keep the last of two rows with one flag or one name
    for name in MODULES:
        spec = spec_of(name)
        assert len(spec.by_name) == len(spec.options), name
        assert len(spec.by_flag) == sum(len(opt.flags) for opt in spec.options), name


def test_a_shared_option_reworded_keeps_its_row_s_name_and_flags() -> None:
    # record words --force and --output its own way; the spelling stays the shared row's
    from agentbisect.core.options import FORCE, OUTPUT

    record = spec_of("record")
    assert record.by_name["force"].flags == FORCE.flags
    assert record.by_name["force"].help != FORCE.help
    assert record.by_name["output"].flags == OUTPUT.flags
    assert record.by_name["output"].required and not OUTPUT.required
