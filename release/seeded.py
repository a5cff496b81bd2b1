"""The release a table runs, as the floor's verification asks of it (issue 50, part 4): its
version, its manifest (None: installed without one) and the folder its packages are installed
in; and the reading of a release's files for a seeded digest, bounded, from disk each time.

The table answers from the files it runs (`Release.answer`); the floor computes what the
answer must be from its own copy of the release, each file checked against the manifest's
SHA-256 as it is read (`expected`), so a copy changed on the floor's disk is never taken for
the release.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from release.manifest import Manifest, ManifestError, seeded_digest

MAX_FILE: Final = 64 << 20  # a file of a release: the largest is a few hundred KiB
MAX_MANIFEST: Final = 8 << 20  # MAX_FILES paths and hashes fit well within it
ROOT: Final = Path(__file__).resolve().parent.parent  # where the top-level packages are


class ReleaseError(ValueError):
    """A file of a release that cannot be read as one: its text names the file and why."""


def installed_version() -> str:
    """The version of tablectl installed here (pyproject's)."""
    return importlib.metadata.version("tablectl")


def read_file(root: Path, path: str, limit: int = MAX_FILE) -> bytes:
    """A release's file `path` under `root`: a regular file (no device, FIFO or symlink out of
    the folder to hang on), at most `limit` bytes; or ReleaseError."""
    where = root / path
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise ReleaseError(f"{path}: cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ReleaseError(f"{path}: not a regular file")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ReleaseError(f"{path}: over {limit >> 20} MiB, no file of a release")
    return data


def read_manifest(path: Path) -> Manifest:
    """The manifest in the file `path`, read bounded; ManifestError naming it otherwise."""
    try:
        data = read_file(path.parent, path.name, MAX_MANIFEST)
        return Manifest.parse(data.decode("utf-8"), str(path))
    except (ReleaseError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from None


@dataclass(frozen=True)
class Release:
    """What a table runs: built once at its start (`installed`), handed to its floor link."""

    version: str
    manifest: Manifest | None
    root: Path = ROOT

    @classmethod
    def installed(cls, manifest: Path | None, root: Path = ROOT) -> Release:
        """This installation: its version, and its manifest read from `manifest` (None: none,
        so the table answers that it has none). ManifestError for one that cannot be read."""
        return cls(installed_version(), None if manifest is None else read_manifest(manifest),
                   root)

    def answer(self, seed: bytes) -> str:
        """The seeded digest of every file of the manifest, each read from disk now (a cached
        answer would prove nothing); ReleaseError for a file that cannot be read, or for no
        manifest."""
        if self.manifest is None:
            raise ReleaseError("no manifest: this table was started without one")
        return seeded_digest(seed, self.manifest.paths(), lambda path: read_file(self.root, path))


def expected(manifest: Manifest, root: Path, seed: bytes) -> str:
    """The answer a table running this release must give for `seed`, from the floor's copy in
    `root`; ReleaseError if a file of the copy is not the manifest's."""
    hashes = dict(manifest.files)

    def read(path: str) -> bytes:
        data = read_file(root, path)
        if hashlib.sha256(data).hexdigest() != hashes[path]:
            raise ReleaseError(f"{path}: not the file the manifest names (its SHA-256 differs)")
        return data
    return seeded_digest(seed, manifest.paths(), read)


def check_copy(manifest: Manifest, root: Path) -> None:
    """Every file of the manifest in `root`, as the manifest hashes it; ReleaseError naming the
    first that is not."""
    for path, sha in manifest.files:
        if hashlib.sha256(read_file(root, path)).hexdigest() != sha:
            raise ReleaseError(f"{path}: not the file the manifest names (its SHA-256 differs)")
