"""The files of a release as they are: read from a built wheel or an installed tree to be
signed, and an installed tree checked against its signed manifest.

A release is every file of the project's top-level packages: the code and the data it runs
(pay tables, catalogs, static pages, migrations), all of which the table reads, some by
globbing a folder (an extra pay table would be dealt). Only the compiled caches are not: a
`.pyc` in a `__pycache__` folder is written by the interpreter on the table itself. Anything
else found under the packages and not in the manifest is a finding, as is a link or any other
entry that is not a plain file (a FIFO would block the read, a link points outside the release).

The tree is the folder the packages are installed in (a site-packages or a checkout) and is read
as found there: what is wrong is returned as findings, never raised, so that the caller
decides what a finding does (log it, refuse to start, latch the table).
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import re
import stat
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from release.manifest import MAX_FILES, Manifest, ManifestError

PACKAGES: Final = ("controller", "devices", "drivers", "simulators", "floor", "protocol",
                   "plumbing", "release")
CACHE: Final = "__pycache__"
CHUNK: Final = 1 << 20
MAX_WHEEL_FILE: Final = 64 << 20  # a release's largest file is a few hundred KiB
MAX_METADATA: Final = 1 << 20  # the most of a METADATA or pyproject.toml read for a version


class Problem(enum.StrEnum):
    """What is wrong with a file or with the manifest, as `tablectl verify` prints it."""

    CHANGED = "CHANGED"  # its SHA-256 is not the manifest's
    MISSING = "MISSING"  # in the manifest, not installed
    EXTRA = "EXTRA"  # installed under the packages, not in the manifest
    NOT_A_FILE = "NOT A FILE"  # a link, a FIFO, a folder where a file should be
    UNREADABLE = "UNREADABLE"  # there, but this user cannot read it
    UNSIGNED = "UNSIGNED"  # the manifest carries no signature
    NOT_SIGNED_BY_THE_RELEASE = "BAD SIGNATURE"  # another key's, or the manifest was edited
    NO_MANIFEST = "NO MANIFEST"  # the manifest or its key cannot be read as one


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong: the file (or the manifest, or the key) and what, with a detail where
    the problem alone does not say it (an OS error, the manifest's field)."""

    path: str
    problem: Problem
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Checked:
    """What a check read: the manifest's version (None if it could not be read), the files that
    hold, and the findings, the manifest's first, then by path."""

    version: str | None
    holding: tuple[str, ...]
    findings: tuple[Finding, ...]


class ReleaseError(ValueError):
    """A wheel or a tree that cannot be made into a manifest: its text names the file."""


def tree_files(root: Path) -> Iterator[tuple[str, bytes]]:
    """Every file of the packages installed in `root`, `(path, bytes)`: what a release made
    from an installed tree (a site-packages, a checkout) holds."""
    entries, over = _walk(root)
    if over:
        raise ReleaseError(f"{root}: more than {MAX_FILES:,} files under the packages")
    if not entries:
        raise ReleaseError(f"{root}: none of the packages {', '.join(PACKAGES)} is there")
    for path, mode in entries:
        if not stat.S_ISREG(mode):
            raise ReleaseError(f"{root / path}: not a plain file (a link, a FIFO, a device)")
        yield path, (root / path).read_bytes()


def wheel_files(wheel: Path) -> Iterator[tuple[str, bytes]]:
    """Every file of the packages in a built wheel, `(path, bytes)`, the .dist-info and any
    compiled cache aside: what the wheel installs them as."""
    try:
        archive = zipfile.ZipFile(wheel)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ReleaseError(f"{wheel}: not a wheel ({exc})") from None
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()
                   and PurePosixPath(info.filename).parts[0] in PACKAGES
                   and not _cached(info.filename)]
        if not members:
            raise ReleaseError(f"{wheel}: none of the packages {', '.join(PACKAGES)} is in it")
        if len(members) > MAX_FILES:
            raise ReleaseError(f"{wheel}: more than {MAX_FILES:,} files")
        for info in members:
            if info.file_size > MAX_WHEEL_FILE:
                raise ReleaseError(f"{wheel}: {info.filename}: {info.file_size:,} bytes, more "
                                   f"than a release's file ({MAX_WHEEL_FILE >> 20} MiB)")
            try:
                yield info.filename, archive.read(info)
            except (zipfile.BadZipFile, OSError) as exc:  # a CRC that fails, a bad entry
                raise ReleaseError(f"{wheel}: {info.filename}: {exc}") from None


def version_of(source: Path) -> str | None:
    """The version of tablectl a wheel or a tree holds, as its packaging says it (the
    .dist-info's METADATA, else a checkout's pyproject.toml), or None if it does not."""
    if source.is_dir():
        for metadata in sorted(source.glob("tablectl-*.dist-info/METADATA")):
            with metadata.open("rb") as file:
                return _metadata_version(file.read(MAX_METADATA))
        try:
            with (source / "pyproject.toml").open("rb") as file:
                project = tomllib.loads(file.read(MAX_METADATA).decode()).get("project", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
        version = project.get("version") if project.get("name") == "tablectl" else None
        return version if isinstance(version, str) else None
    try:
        with zipfile.ZipFile(source) as archive:
            for info in archive.infolist():
                if re.fullmatch(r"tablectl-[^/]+\.dist-info/METADATA", info.filename):
                    with archive.open(info) as file:
                        return _metadata_version(file.read(MAX_METADATA))
    except (zipfile.BadZipFile, OSError):
        return None
    return None


def _metadata_version(data: bytes) -> str | None:
    found = re.search(rb"^Version: *(\S+) *$", data, re.MULTILINE)
    return found[1].decode("ascii", "replace") if found else None


def check(text: str, where: str, key: Ed25519PublicKey, root: Path) -> Checked:
    """The tree in `root` against the manifest `text` (read bounded by the caller from
    `where`), signed by the release's `key`. A manifest unsigned, or signed by another key, is
    a finding and its files are still compared (said, never trusted); one that cannot be read
    as a manifest leaves nothing to compare."""
    try:
        manifest, signed = parse(text, where)
    except ManifestError as exc:
        return Checked(None, (), (Finding(where, Problem.NO_MANIFEST, str(exc)),))
    first: list[Finding] = []
    if not signed:
        first.append(Finding(where, Problem.UNSIGNED))
    elif not manifest.holds(key):
        first.append(Finding(where, Problem.NOT_SIGNED_BY_THE_RELEASE))
    holding, found = _compare(manifest, root)
    return Checked(manifest.version, tuple(holding), (*first, *found))


def parse(text: str, where: str) -> tuple[Manifest, bool]:
    """The manifest in `text` and whether it carries a signature at all (one without is read
    as if it did, so that its files can be compared), or ManifestError, also for JSON nested
    too deep to read."""
    try:
        data = json.loads(text)
        if isinstance(data, dict) and data.get("signature") in (None, ""):
            return Manifest.parse(json.dumps({**data, "signature": "0" * 128}), where), False
        return Manifest.parse(text, where), True
    except RecursionError:
        raise ManifestError(f"{where}: nested too deep to be a manifest") from None
    except ValueError as exc:
        if isinstance(exc, ManifestError):
            raise
        raise ManifestError(f"{where}: not JSON ({exc})") from None


def _compare(manifest: Manifest, root: Path) -> tuple[list[str], list[Finding]]:
    entries, over = _walk(root)
    found = dict(entries)
    holding: list[str] = []
    findings: list[Finding] = []
    for path, sha in manifest.files:
        mode = found.pop(path, None)
        if mode is None:
            findings.append(Finding(path, Problem.MISSING))
        elif not stat.S_ISREG(mode):
            findings.append(Finding(path, Problem.NOT_A_FILE))
        else:
            try:
                same = _sha256(root / path) == sha
            except OSError as exc:
                findings.append(Finding(path, Problem.UNREADABLE, exc.strerror or str(exc)))
                continue
            if same:
                holding.append(path)
            else:
                findings.append(Finding(path, Problem.CHANGED))
    findings.extend(Finding(path, Problem.EXTRA if stat.S_ISREG(mode) else Problem.NOT_A_FILE)
                    for path, mode in found.items())
    if over:
        findings.append(Finding(f"{root}", Problem.EXTRA,
                                f"more than {MAX_FILES:,} files under the packages"))
    findings.sort(key=lambda finding: finding.path)
    return holding, findings


def _walk(root: Path) -> tuple[list[tuple[str, int]], bool]:
    """Each entry under the packages in `root` that is not a folder, and each link (to a folder
    too), `(POSIX path, lstat mode)`, the caches aside; and whether there were more than
    MAX_FILES (the walk stops there: memory stays bounded whatever was planted)."""
    entries: list[tuple[str, int]] = []
    for package in PACKAGES:
        top = root / package
        try:
            mode = os.lstat(top).st_mode
        except OSError:
            continue
        if not stat.S_ISDIR(mode):
            entries.append((package, mode))
            continue
        for folder, folders, files in os.walk(top):
            here = Path(folder).relative_to(root).as_posix()
            for name in [*folders]:
                path = os.path.join(folder, name)
                if os.path.islink(path):  # not followed by the walk: said as what it is
                    folders.remove(name)
                    files.append(name)
            for name in files:
                relative = f"{here}/{name}"
                if _cached(relative):
                    continue
                try:
                    entries.append((relative, os.lstat(os.path.join(folder, name)).st_mode))
                except OSError:  # gone since it was listed
                    continue
                if len(entries) > MAX_FILES:
                    return entries, True
    return entries, False


def _cached(path: str) -> bool:
    """A compiled cache: a `.pyc` in a `__pycache__` folder, as the interpreter writes it."""
    parts = PurePosixPath(path).parts
    return len(parts) >= 2 and parts[-2] == CACHE and parts[-1].endswith(".pyc")


def _sha256(path: Path) -> str:
    """The file's SHA-256, read in chunks (a file made huge costs time, never memory), and
    never through a link or a FIFO swapped in since the walk."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a plain file")
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
