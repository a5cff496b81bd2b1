"""The docs say what the program does, where a test can tell (issue 35): every `tablectl ...`
command quoted in README.md and docs/*.md names commands and options the parser has; every
figure of the README's performance table names a benchmark that exists and takes the options
given; the warning a table without numpy logs is the one the README quotes."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from controller.commands.main import build_parser
from controller.daemon.protection import NEEDS_ANALYSIS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `tablectl` run as a command (not `sudo -u tablectl`, `tablectl: run: ...`, `tablectl[floor]`).
COMMAND = re.compile(r"(?:^|(?<=\s)|(?<=/bin/))tablectl((?: +[^\s`|;&>#]+)+)")
# A block of shell (or of no language) and its lines, or a code span in the text.
SPANS = re.compile(r"```(?:sh|bash|console)?\n(.*?)```|```\w+\n.*?```|`([^`\n]+)`", re.S)
ENDS = ("|", "&&", "||", ";", ">", "<", "#", "2>&1")  # the shell's, not the command's
BENCHMARK = re.compile(r"`python -m (benchmarks(?:\.\w+)?)((?: [^`]*)?)`")


def quoted() -> Iterator[tuple[str, int, str]]:
    """(file, line, text after `tablectl`) of each command quoted in a code span or block."""
    for path in DOCS:
        text = path.read_text()
        for span in SPANS.finditer(text):
            block = span[1] is not None
            if not block and span[2] is None:
                continue  # a block of another language (ini, toml, json)
            start = span.start(1 if block else 2)
            offset = 0
            for line in (span[1] if block else span[2]).split("\n"):
                said = re.split(r"(?:^|\s)#", line)[0] if block else line  # not its comment
                for found in COMMAND.finditer(said):
                    before = said[:found.start()].split()
                    if not (before and before[-1].startswith("-")):  # not `sudo -u tablectl`
                        yield path.name, text.count("\n", 0, start + offset) + 1, found[1]
                offset += len(line) + 1


def words(rest: str) -> list[str]:
    """The command's words, up to what the shell would take from it."""
    try:
        tokens = shlex.split(rest, comments=True)
    except ValueError:  # an unclosed quote in a usage line: split on spaces
        tokens = rest.split()
    kept: list[str] = []
    for token in tokens:
        if token in ENDS or token.startswith(ENDS):
            break
        kept.append(token)
    return kept


def children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def walk(tokens: list[str]) -> tuple[str, list[str]]:
    """Down the real parser: the command named, and what is wrong with the quote (a command or
    an option the parser does not have). Placeholders (FILE, <table>, ...) name nothing."""
    parser, named = build_parser(), ["tablectl"]
    wrong: list[str] = []
    for token in tokens:
        option = token.strip("[]{}(),").split("=", 1)[0]
        sub = children(parser)
        if sub and not option.startswith("-"):  # a command, or the quote stops naming one
            if token not in sub:
                if token not in ("...", "…") and not re.fullmatch(r"[A-Z<\[].*", token):
                    wrong.append(f"no command {' '.join([*named[1:], token])!r}")
                break
            parser = sub[token]
            named.append(token)
        elif re.fullmatch(r"--?[a-zA-Z][\w-]*", option) and \
                option not in parser._option_string_actions:
            wrong.append(f"{' '.join(named)} has no option {option}")
    return " ".join(named), wrong


@pytest.mark.parametrize(("where", "rest"), [
    pytest.param(f"{name}:{line}", rest, id=f"{name}:{line}") for name, line, rest in quoted()])
def test_a_quoted_command_is_one_the_parser_has(where: str, rest: str) -> None:
    """A command quoted in the docs that the program does not have (a renamed option, a
    command moved) fails here, naming the file and line."""
    _, wrong = walk(words(rest))
    assert not wrong, f"{where}: `tablectl{rest}`: {'; '.join(wrong)}"


@pytest.mark.slow
def test_the_docs_quote_commands() -> None:
    """The walk finds what it walks: most quotes name a command under `tablectl`."""
    walked = [walk(words(rest))[0] for _, _, rest in quoted()]
    assert len(walked) > 100 and sum(command != "tablectl" for command in walked) > 100


@cache
def benchmark_help(module: str) -> str:
    result = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                            text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, f"{module} --help: {result.stderr[-500:]}"
    return result.stdout


def performance_rows() -> list[tuple[int, str, str]]:
    """(line, what, command) of each row of the README's performance table; "same" is the
    command of the row above it."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = lines.index("| what | figure | target | command |")
    rows: list[tuple[int, str, str]] = []
    for number, line in enumerate(lines[start + 2:], start=start + 3):
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        what, command = cells[0], cells[-1]
        if command == "same":
            assert rows, f"README.md:{number}: `same` with no row above it"
            command = rows[-1][2]
        else:
            found = BENCHMARK.search(command)
            assert found, f"README.md:{number}: {what!r} names no `python -m benchmarks...`"
            command = f"{found[1]}{found[2]}"
        rows.append((number, what, command))
    return rows


def wrong_with(command: str) -> list[str]:
    """What is wrong with a benchmark's command: no such module, or an option it does not
    take (its `--help` says which it takes)."""
    module, *args = command.split()
    path = ROOT / module.replace(".", "/")
    if not (path.with_suffix(".py").exists() or (path / "__main__.py").exists()):
        return [f"no module {module}"]
    usage = benchmark_help(module)
    options = [arg.strip("[]").split("=")[0] for arg in args if arg.strip("[").startswith("--")]
    return [f"{module} takes no {option}" for option in options
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", usage)]


@pytest.mark.slow
def test_every_figure_names_the_benchmark_that_gives_it() -> None:
    """Each row of the README's performance table names its benchmark, which exists and takes
    each option the row gives it."""
    rows = performance_rows()
    assert len(rows) > 20
    for number, what, command in rows:
        assert not wrong_with(command), f"README.md:{number}: {what!r}: {wrong_with(command)}"


@pytest.mark.slow
def test_every_benchmark_quoted_exists_and_takes_its_options() -> None:
    """The same for every `python -m benchmarks...` the README and the docs quote."""
    found = [(path.name, match[1] + match[2]) for path in DOCS
             for match in BENCHMARK.finditer(path.read_text())]
    assert len(found) > 30
    wrong = [f"{name}: `python -m {command}`: {'; '.join(wrong_with(command))}"
             for name, command in found if wrong_with(command)]
    assert not wrong, wrong


def test_the_numpy_warning_is_the_one_the_readme_quotes() -> None:
    """A table without the analysis extra logs one warning: the README says it word for
    word, so the two cannot drift apart."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f'"{NEEDS_ANALYSIS}"' in readme


@pytest.mark.slow
def test_the_suite_s_figures_are_its_own() -> None:
    """README.md and CONTRIBUTING.md say how many tests the fast command runs of all of them
    (issue 48: they said 1,048 of 2,303 long after): `python -m benchmarks.suite --write` writes
    the figures, and they are what pytest collects now."""
    from benchmarks.suite import FAST, SENTENCES, collected
    figures = (f"{collected(FAST):,}", f"{collected():,}")
    for path, sentence in SENTENCES.items():
        found = sentence.search(path.read_text())
        assert found is not None, f"{path.name}: the sentence with the suite's figures is gone"
        assert (found[1], found[2]) == figures, path.name
