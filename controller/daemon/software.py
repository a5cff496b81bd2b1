"""The software a table runs, checked at start against its release's signed manifest (issue 50,
docs/release.md): whether it is checked (`[integrity] software`), against what, and what is
said of each finding.

"required" latches each finding (the integrity error: DO NOT DEAL until a supervisor clears it,
`controller.daemon.integrity`); "warn" logs each and starts; "off" checks nothing.
A table whose configuration has `[integrity]` is "required" unless it says otherwise; the demo,
a table without `[integrity]` and one run from a development checkout are "warn". The log says
how, once, at start: at info where a manifest is checked, at debug (`-v`) where there is none
to check against (the demo, a table without `[integrity]`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import structlog

from controller.daemon import integrity as latch
from controller.daemon.config_file import IntegrityConfig, RunConfig
from controller.game.said import Said, said
from plumbing.checked_files import MANIFEST, PEM_KEY, BadInput, read_text
from release.installed import Checked, Finding, Problem, check

ROOT: Final = Path(__file__).resolve().parents[2]  # where the packages this table runs are


@dataclass(frozen=True, slots=True)
class Mode:
    """How the software is checked, and why (what the log says once)."""

    software: str
    why: str


def mode(config: RunConfig | None, root: Path = ROOT) -> Mode:
    """`[integrity] software` where the configuration sets it; else "warn" for the demo, a
    table without `[integrity]` or a development checkout, "required" otherwise."""
    if config is None:
        return Mode("warn", "the demo")
    integrity = config.integrity
    if integrity is None:
        return Mode("warn", f"no [integrity] in {config.path}")
    if integrity.software is not None:
        return Mode(integrity.software, f"[integrity] software in {config.path}")
    if checkout(root):
        return Mode("warn", f"a development checkout ({root})")
    return Mode("required", f"[integrity] in {config.path}")


def checkout(root: Path) -> bool:
    """Whether the packages run from the project's own tree (its pyproject.toml beside them),
    not from an installed release."""
    return (root / "pyproject.toml").is_file()


def verified(integrity: IntegrityConfig, root: Path = ROOT) -> Checked:
    """The tree in `root` against the manifest and key `integrity` names; a manifest or key
    that cannot be read is a finding like any other, naming its file."""
    assert integrity.manifest is not None and integrity.public_key is not None
    from controller.journal import JournalError
    from controller.journal.signing import public_key
    try:
        key = public_key(read_text(integrity.public_key, PEM_KEY), integrity.public_key)
    except (JournalError, BadInput) as exc:
        return Checked(None, (), (Finding(str(integrity.public_key), Problem.NO_MANIFEST,
                                          str(exc)),))
    try:
        text = read_text(integrity.manifest, MANIFEST)
    except BadInput as exc:
        return Checked(None, (), (Finding(str(integrity.manifest), Problem.NO_MANIFEST,
                                          str(exc)),))
    return check(text, str(integrity.manifest), key, root)


def words(finding: Finding) -> Said:
    """A finding in a sentence for people, naming the file and what is wrong."""
    match finding.problem:
        case Problem.CHANGED:
            return said("{file}: changed since the release was signed", file=_shown(finding))
        case Problem.MISSING:
            return said("{file}: missing: the release has it", file=_shown(finding))
        case Problem.EXTRA:
            return said("{file}: not part of the release", file=_shown(finding))
        case Problem.NOT_A_FILE:
            return said("{file}: not a plain file (a link or a device)", file=_shown(finding))
        case Problem.UNREADABLE:
            return said("{file}: cannot be read: {reason}", file=_shown(finding),
                        reason=finding.detail)
        case Problem.UNSIGNED:
            return said("the release's manifest {file} is not signed", file=_shown(finding))
        case Problem.NOT_SIGNED_BY_THE_RELEASE:
            return said("the release's manifest {file} is not signed by the release's key",
                        file=_shown(finding))
        case Problem.NO_MANIFEST:
            return said("the software cannot be checked: {reason}", reason=finding.detail)


def _shown(finding: Finding) -> str:
    """A path as a person can read it: one planted with control characters or bytes that are
    not UTF-8 is shown escaped, never written raw to a terminal or a log."""
    path = finding.path
    return path if path.isprintable() else ascii(path)[1:-1]


def check_at_start(config: RunConfig | None, root: Path = ROOT) -> list[latch.Finding]:
    """The check the table's start makes before READY: the mode said once, each finding
    logged. Returns what the table latches: in "required", each finding; else none."""
    log: Any = structlog.get_logger()
    how = mode(config, root)
    integrity = config.integrity if config is not None else None
    if how.software == "off" or integrity is None or integrity.manifest is None:
        # At debug (-v): the demo's log and a refusal before READY stay one line of their own.
        log.debug("software not checked", software=how.software, why=how.why)
        return []
    checked = verified(integrity, root)
    findings = list(checked.findings)
    log.info("software checked", software=how.software, why=how.why,
             manifest=str(integrity.manifest), release=checked.version,
             files=len(checked.holding) + len(findings), findings=len(findings))
    for finding in findings:
        log.warning("software not its release's", file=_shown(finding),
                    problem=str(finding.problem), said=words(finding))
    return [latched(finding, root) for finding in findings] if how.software == "required" \
        else []


def latched(finding: Finding, root: Path) -> latch.Finding:
    """A finding as the integrity error holds it: known again by the file's content now (a
    file changed again after a supervisor cleared it latches anew)."""
    evidence = hashlib.sha256(f"{finding.problem}\n{finding.path}\n{finding.detail}".encode())
    path = root / finding.path
    if path.is_file() and not path.is_symlink() and path.stat().st_size <= MANIFEST.limit:
        evidence.update(hashlib.sha256(path.read_bytes()).digest())
    return latch.Finding("software", _shown(finding), words(finding), evidence.hexdigest())
