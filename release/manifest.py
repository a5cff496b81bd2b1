"""A release as a table proves it runs: every file of the installed package with its SHA-256, the
version, signed by the release's Ed25519 key; and the seeded digest a floor asks for.

The manifest is JSON read from outside (a file on the table's card, a folder on the floor), so it
is hostile until `Manifest.parse` has bounded and checked every field; its signature covers
`body()`, a canonical encoding of everything but the signature. Paths are relative to the
folder the package's top-level modules are installed in (a wheel's own layout), POSIX, sorted.

The seeded digest is HMAC-SHA256 keyed by the floor's fresh seed over each file, in the
manifest's order, as its path, a NUL, its length in 8 bytes and its bytes: an answer cannot be
computed before the seed is known, so a table must read every file it runs to give it (the
GSA's Game Authentication Terminal asks the same of a device).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.journal.signing import Signer, signature_holds

FORMAT: Final = "tablectl release 1"
MAX_FILES: Final = 20_000  # a release holds a few hundred; a manifest past this is not one
MAX_PATH: Final = 300
MAX_VERSION: Final = 64
SEED_BYTES: Final = (16, 64)  # the shortest and longest seed a floor may send
_VERSION: Final = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]*")
_PATH_PART: Final = re.compile(r"[0-9A-Za-z_][0-9A-Za-z_.+-]*")
_SHA256: Final = re.compile(r"[0-9a-f]{64}")
_SIGNATURE: Final = re.compile(r"[0-9a-f]{128}")


class ManifestError(ValueError):
    """A manifest that cannot be read as one: its text names the field and what is wrong."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """A release's files `(path, sha256)`, sorted by path, its version and its signature."""

    version: str
    files: tuple[tuple[str, str], ...]
    signature: str

    def body(self) -> bytes:
        """What the signature covers: the format, the version and the files, canonical JSON."""
        return _canonical({"format": FORMAT, "version": self.version,
                           "files": [list(item) for item in self.files]})

    def holds(self, key: Ed25519PublicKey) -> bool:
        """Whether the release's key signed exactly this manifest."""
        return signature_holds(key, self.body(), self.signature)

    def paths(self) -> list[str]:
        return [path for path, _ in self.files]

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "version": self.version,
                           "files": [list(item) for item in self.files],
                           "signature": self.signature}, indent=1) + "\n"

    @classmethod
    def parse(cls, text: str, where: str) -> Manifest:
        """The manifest in `text` (read bounded by the caller from `where`), or a ManifestError
        naming `where`, the field and what is wrong with it."""
        try:
            data = json.loads(text)
        except ValueError as error:
            raise ManifestError(f"{where}: not JSON ({error})") from None
        except RecursionError:
            raise ManifestError(f"{where}: not JSON a manifest holds (nested too deep)") from None
        if not isinstance(data, dict):
            raise ManifestError(f"{where}: not a JSON object")
        if data.get("format") != FORMAT:
            raise ManifestError(f"{where}: format: not {FORMAT!r}")
        unknown = sorted(set(data) - {"format", "version", "files", "signature"})
        if unknown:
            raise ManifestError(f"{where}: {unknown[0]}: not a field of a manifest")
        return cls(version=_version(data.get("version"), where),
                   files=_files(data.get("files"), where),
                   signature=_signature(data.get("signature"), where))


def make(version: str, files: Iterable[tuple[str, bytes]], signer: Signer) -> Manifest:
    """The signed manifest of a release whose files are `(path, bytes)`: refused as a parsed
    one would be, so what is signed can always be read back."""
    _version(version, "the release")
    hashed = [(path, hashlib.sha256(data).hexdigest()) for path, data in files]
    checked = _files([list(item) for item in sorted(hashed)], "the release")
    unsigned = Manifest(version, checked, "")
    return Manifest(version, checked, signer.sign(unsigned.body()))


def seeded_digest(seed: bytes, paths: Iterable[str], read: Callable[[str], bytes]) -> str:
    """HMAC-SHA256 keyed by `seed` over each file of `paths` in order (its path, a NUL, its
    length and its bytes, as `read` gives them): the answer to a floor's verification."""
    low, high = SEED_BYTES
    if not low <= len(seed) <= high:
        raise ValueError(f"seed: {len(seed)} bytes, not {low} to {high}")
    digest = hmac.new(seed, digestmod=hashlib.sha256)
    for path in paths:
        data = read(path)
        digest.update(path.encode() + b"\0" + len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _version(value: object, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_VERSION or not _VERSION.fullmatch(value):
        raise ManifestError(f"{where}: version: not a version of at most {MAX_VERSION} "
                            "letters, digits and . + _ -")
    return value


def _files(value: object, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not value:
        raise ManifestError(f"{where}: files: not a list of files")
    if len(value) > MAX_FILES:
        raise ManifestError(f"{where}: files: {len(value):,} files, more than {MAX_FILES:,}")
    files: list[tuple[str, str]] = []
    for index, item in enumerate(value):
        field = f"{where}: files[{index}]"
        if not (isinstance(item, list) and len(item) == 2
                and all(isinstance(part, str) for part in item)):
            raise ManifestError(f"{field}: not a [path, sha256] pair")
        path, sha = item
        _path(path, field)
        if not _SHA256.fullmatch(sha):
            raise ManifestError(f"{field}: sha256: not 64 lower-case hexadecimal digits")
        if files and path <= files[-1][0]:
            raise ManifestError(f"{field}: {path}: not after {files[-1][0]} (the paths are "
                                "sorted, each once)")
        files.append((path, sha))
    return tuple(files)


def _path(path: str, field: str) -> None:
    """A relative POSIX path of plain names: nothing that leaves the folder or hides a file."""
    if len(path) > MAX_PATH or not all(_PATH_PART.fullmatch(part) for part in path.split("/")):
        raise ManifestError(f"{field}: path: not a relative path of plain names (letters, "
                            f"digits, _ . + -) of at most {MAX_PATH} characters")


def _signature(value: object, where: str) -> str:
    if not isinstance(value, str) or not _SIGNATURE.fullmatch(value):
        raise ManifestError(f"{where}: signature: not an Ed25519 signature (128 lower-case "
                            "hexadecimal digits)")
    return value
