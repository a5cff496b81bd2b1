"""Issue 50, parts 3 and 5: an installed tree checked against its release's signed manifest.
A copy of the project's own packages is the installed tree, signed as `tablectl release sign`
signs it; then each attack on the software: a byte of a file changed, a file removed, an
importable file added, the manifest re-signed by another key or stripped of its signature.
Each is caught and named; the compiled caches are let be."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import string
import tempfile
import zipfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal.signing import Signer
from release.installed import (
    PACKAGES,
    Finding,
    Problem,
    ReleaseError,
    check,
    parse,
    tree_files,
    version_of,
    wheel_files,
)
from release.manifest import Manifest, ManifestError, make

ROOT = Path(__file__).resolve().parents[2]
KEY = Signer(Ed25519PrivateKey.generate())
OTHER = Signer(Ed25519PrivateKey.generate())
PUBLIC = KEY.key.public_key()


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The project's packages as installed (a copy, caches aside) and their signed manifest."""
    tree = tmp_path_factory.mktemp("site")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tree / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tree, make("0.2.0", tree_files(tree), KEY).to_json()


@pytest.fixture
def tree(release: tuple[Path, str], tmp_path: Path) -> Path:
    """A tree of the release's own to attack (a copy of the module's)."""
    copy = tmp_path / "site"
    shutil.copytree(release[0], copy, symlinks=True)
    return copy


def problems(text: str, tree: Path) -> list[tuple[str, Problem]]:
    return [(f.path, f.problem) for f in check(text, "release.json", PUBLIC, tree).findings]


def test_the_installed_release_holds_file_by_file(release: tuple[Path, str]) -> None:
    """Every file of every package, code and data, is in the manifest and holds: the pay
    tables, the catalogs, the static pages and the migrations are what the table runs."""
    tree, text = release
    checked = check(text, "release.json", PUBLIC, tree)
    assert checked.findings == ()
    assert checked.version == "0.2.0"
    assert set(checked.holding) == set(Manifest.parse(text, "m").paths())
    for data in ("controller/game/paytables/lucky7/1.toml", "floor/migrations/001_initial.sql",
                 "controller/display/static/index.html", "controller/i18n/tablectl.pot",
                 "controller/i18n/locale/ko/LC_MESSAGES/tablectl.mo", "release/installed.py"):
        assert data in checked.holding
    assert not [path for path in checked.holding if "__pycache__" in path]


def test_a_byte_changed_in_a_file_is_named(release: tuple[Path, str], tree: Path) -> None:
    for path in ("floor/pit/tables.py", "controller/game/paytables/lucky7/1.toml"):
        target = tree / path
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 1
        target.write_bytes(bytes(data))
        assert (path, Problem.CHANGED) in problems(release[1], tree)
    assert [p for _, p in problems(release[1], tree)] == [Problem.CHANGED] * 2


def test_a_file_removed_is_named(release: tuple[Path, str], tree: Path) -> None:
    (tree / "controller/daemon/loop.py").unlink()
    assert problems(release[1], tree) == [("controller/daemon/loop.py", Problem.MISSING)]


@pytest.mark.parametrize("path", [
    "controller/game/rules/backdoor.py", "drivers/fast.cpython-311-x86_64-linux-gnu.so",
    "floor/sourceless.pyc", "controller/__pycache__/planted.py",
    "controller/game/paytables/blackjack/99.toml", "plumbing/static/extra.js"])
def test_an_extra_file_under_the_packages_is_named(release: tuple[Path, str], tree: Path,
                                                   path: str) -> None:
    """Importable (a module, an extension, a sourceless .pyc, a module hidden in a cache
    folder: a namespace package imports it) or data a folder's glob would read."""
    (tree / path).parent.mkdir(exist_ok=True)
    (tree / path).write_bytes(b"print('owned')\n")
    assert problems(release[1], tree) == [(path, Problem.EXTRA)]


def test_the_compiled_caches_are_let_be(release: tuple[Path, str], tree: Path) -> None:
    cache = tree / "controller" / "game" / "__pycache__"
    cache.mkdir()
    (cache / "cards.cpython-311.pyc").write_bytes(b"\x00" * 16)
    (tree / "release" / "__pycache__").mkdir()
    (tree / "release" / "__pycache__" / "installed.cpython-311.opt-1.pyc").write_bytes(b"x")
    assert problems(release[1], tree) == []


def test_a_link_or_a_fifo_is_not_a_file(release: tuple[Path, str], tree: Path) -> None:
    """A link points outside the release, a FIFO would block the read: each is named, and
    the check ends."""
    outside = tree.parent / "outside.py"
    outside.write_text("x = 1\n")
    (tree / "devices" / "events.py").unlink()
    (tree / "devices" / "events.py").symlink_to(outside)
    (tree / "protocol" / "linked").symlink_to(tree.parent)
    os.mkfifo(tree / "drivers" / "pipe.py")
    assert problems(release[1], tree) == [
        ("devices/events.py", Problem.NOT_A_FILE), ("drivers/pipe.py", Problem.NOT_A_FILE),
        ("protocol/linked", Problem.NOT_A_FILE)]


def test_a_manifest_re_signed_by_another_key_is_named(release: tuple[Path, str],
                                                      tree: Path) -> None:
    """Whoever changed a file and signed the manifest again with a key of their own is
    caught by the signature; the files are compared all the same (and hold, to that
    manifest: the signature is what says they are not the release)."""
    (tree / "controller" / "game" / "cards.py").write_text("# mine\n")
    theirs = make("0.2.0", tree_files(tree), OTHER).to_json()
    assert problems(theirs, tree) == [("release.json", Problem.NOT_SIGNED_BY_THE_RELEASE)]


def test_a_manifest_edited_after_it_was_signed_is_named(release: tuple[Path, str],
                                                        tree: Path) -> None:
    (tree / "controller" / "game" / "cards.py").write_text("# mine\n")
    data = json.loads(release[1])
    data["files"] = [[path, hashlib.sha256(b"# mine\n").hexdigest()]
                     if path == "controller/game/cards.py" else [path, sha]
                     for path, sha in data["files"]]
    assert problems(json.dumps(data), tree) == [
        ("release.json", Problem.NOT_SIGNED_BY_THE_RELEASE)]


@pytest.mark.parametrize("strip", [lambda data: data.pop("signature"),
                                   lambda data: data.update(signature="")],
                         ids=["no signature", "empty signature"])
def test_an_unsigned_manifest_is_named(release: tuple[Path, str], tree: Path,
                                       strip: object) -> None:
    data = json.loads(release[1])
    strip(data)  # type: ignore[operator]
    (tree / "floor" / "pit" / "tables.py").write_text("# mine\n")
    assert problems(json.dumps(data), tree) == [
        ("release.json", Problem.UNSIGNED), ("floor/pit/tables.py", Problem.CHANGED)]


@pytest.mark.parametrize("text", ["", "[" * 200_000, '{"format": "tablectl release 1"}',
                                  "\x00\ud800", json.dumps({"format": "tablectl release 1",
                                                            "version": "1", "files": [],
                                                            "signature": "00"})])
def test_what_is_not_a_manifest_is_one_finding(release: tuple[Path, str], text: str) -> None:
    """Nothing to compare: one finding naming the manifest and why, never an exception."""
    checked = check(text, "release.json", PUBLIC, release[0])
    assert checked.holding == () and checked.version is None
    (finding,) = checked.findings
    assert finding.path == "release.json" and finding.problem == Problem.NO_MANIFEST
    assert finding.detail.startswith("release.json: ")


names = st.text(string.ascii_lowercase + "_", min_size=1, max_size=6)
files = st.dictionaries(st.tuples(st.sampled_from(PACKAGES[:3]), names).map("/".join),
                        st.binary(max_size=32), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(files, st.data())
def test_what_is_found_is_exactly_what_was_done(release_files: dict[str, bytes],
                                                data: st.DataObject) -> None:
    """Any files changed, removed and added at once: the findings are those files, each with
    its problem, and every other file holds."""
    manifest = make("1", release_files.items(), KEY).to_json()
    paths = sorted(release_files)
    changed = data.draw(st.sets(st.sampled_from(paths)))
    removed = data.draw(st.sets(st.sampled_from(paths))) - changed
    added = data.draw(st.sets(st.tuples(st.sampled_from(PACKAGES), names).map(
        lambda parts: f"{parts[0]}/{parts[1]}.py"))) - set(paths)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for path, content in release_files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(content)
        for path in changed:
            (root / path).write_bytes((root / path).read_bytes() + b"!")
        for path in removed:
            (root / path).unlink()
        for path in added:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(b"")
        checked = check(manifest, "m", PUBLIC, root)
    assert sorted((f.path, f.problem) for f in checked.findings) == sorted(
        [(p, Problem.CHANGED) for p in changed] + [(p, Problem.MISSING) for p in removed]
        + [(p, Problem.EXTRA) for p in added])
    assert set(checked.holding) == set(paths) - changed - removed


def test_a_wheel_signs_as_the_tree_it_installs(release: tuple[Path, str],
                                               tmp_path: Path) -> None:
    """A wheel's files of the packages (its .dist-info and any cache aside) are the tree's:
    the manifest of one holds for the other."""
    tree, text = release
    wheel = tmp_path / "tablectl-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, content in tree_files(tree):
            archive.writestr(path, content)
        archive.writestr("tablectl-0.2.0.dist-info/METADATA", "Name: tablectl\nVersion: 0.2.0\n")
        archive.writestr("tablectl-0.2.0.dist-info/RECORD", "")
        archive.writestr("controller/__pycache__/main.cpython-311.pyc", b"")
    assert version_of(wheel) == "0.2.0"
    assert make("0.2.0", wheel_files(wheel), KEY).to_json() == text


def test_what_cannot_be_signed_says_why(tmp_path: Path) -> None:
    with pytest.raises(ReleaseError, match="not a wheel"):
        list(wheel_files(tmp_path))
    (tmp_path / "empty.whl").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    with pytest.raises(ReleaseError, match="none of the packages"):
        list(wheel_files(tmp_path / "empty.whl"))
    with pytest.raises(ReleaseError, match="none of the packages"):
        list(tree_files(tmp_path))
    (tmp_path / "floor").mkdir()
    os.mkfifo(tmp_path / "floor" / "pipe")
    with pytest.raises(ReleaseError, match="not a plain file"):
        list(tree_files(tmp_path))
    (tmp_path / "floor" / "pipe").unlink()
    (tmp_path / "floor" / "a file.py").write_text("")
    with pytest.raises(ManifestError, match="files\\[0\\]: path"):
        make("1", tree_files(tmp_path), KEY)


def test_the_version_is_the_tree_s_own(tmp_path: Path) -> None:
    assert version_of(ROOT) == "0.2.0"  # a checkout: its pyproject.toml
    assert version_of(tmp_path) is None
    (tmp_path / "tablectl-7.1.dist-info").mkdir()
    (tmp_path / "tablectl-7.1.dist-info" / "METADATA").write_text("Version: 7.1\n")
    assert version_of(tmp_path) == "7.1"


def test_parse_tells_an_unsigned_manifest_from_a_signed_one() -> None:
    signed = make("1", [("controller/a.py", b"")], KEY)
    assert parse(signed.to_json(), "m") == (signed, True)
    data = json.loads(signed.to_json())
    del data["signature"]
    manifest, is_signed = parse(json.dumps(data), "m")
    assert not is_signed and manifest.files == signed.files
    assert Finding("m", Problem.UNSIGNED).detail == ""
