"""The keyed anchor: each day close is signed with the table's own Ed25519 key.

A plain SHA-256 chain can be recomputed whole by anyone who can write the file; a chain
rewritten without the key no longer matches the signed chain values. The private key lives in a
file readable only by the service user (`tablectl journal keygen`); the public key goes to
whoever verifies (`tablectl journal verify --public-key FILE`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.journal.files import JournalError

T = TypeVar("T")


def day_message(label: str, seq: int, head: str) -> bytes:
    """What a day close signs: the day, the checkpoint record and its chain value."""
    return f"tablectl day close\n{label}\n{seq}\n{head}".encode()


def fingerprint(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


class Signer:
    def __init__(self, key: Ed25519PrivateKey) -> None:
        self.key = key
        self.fingerprint = fingerprint(key.public_key())

    @classmethod
    def from_pem(cls, pem: str, path: Path) -> Signer:
        """The key in `pem`, the text of the key file `path` (read bounded by the caller)."""
        key = _load_pem(pem, path, "signing key", "private key",
                        lambda data: serialization.load_pem_private_key(data, password=None))
        if not isinstance(key, Ed25519PrivateKey):
            raise JournalError(f"signing key {path}: not an Ed25519 key")
        return cls(key)

    def sign(self, message: bytes) -> str:
        return self.key.sign(message).hex()


def public_key(pem: str, path: Path) -> Ed25519PublicKey:
    """The public key in `pem`, the text of the file `path` (read bounded by the caller)."""
    key = _load_pem(pem, path, "public key", "public key", serialization.load_pem_public_key)
    if not isinstance(key, Ed25519PublicKey):
        raise JournalError(f"public key {path}: not an Ed25519 key")
    return key


def _load_pem(pem: str, path: Path, what: str, kind: str, load: Callable[[bytes], T]) -> T:
    """A PEM key, or a JournalError naming its file and what is wrong with it."""
    try:
        return load(pem.encode())
    except (ValueError, TypeError, UnsupportedAlgorithm):  # TypeError: an encrypted key
        raise JournalError(f"{what} {path}: not a PEM {kind}") from None


def signature_holds(key: Ed25519PublicKey, message: bytes, signature: str) -> bool:
    try:
        key.verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def public_path(key: Path) -> Path:
    """Where `keygen` puts a key's public half: beside it, `.pub`."""
    return key.with_name(key.name + ".pub")


def keygen(path: Path) -> tuple[Path, str]:
    """A new key at `path` (mode 0600, never overwritten) and its public half at `path.pub`.
    An OSError (a folder that cannot be made, a file that cannot be written) is the caller's
    to word, by the option that named the path."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise JournalError(f"signing key {path}: exists already; a table keeps its key") from None
    with os.fdopen(fd, "wb") as out:
        out.write(pem)
    public = public_path(path)
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return public, fingerprint(key.public_key())
