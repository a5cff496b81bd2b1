"""Issue 50, part 3: a release's manifest is signed by the release's key, read back only as it
was signed, and refused field by field when it is anything else; the seeded digest depends on
the seed and on every byte, name and place of every file."""

from __future__ import annotations

import json
import string

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from controller.journal.signing import Signer
from release.manifest import Manifest, ManifestError, make, seeded_digest

KEY = Signer(Ed25519PrivateKey.generate())
OTHER = Signer(Ed25519PrivateKey.generate())
SEED = bytes(range(32))

names = st.text(string.ascii_lowercase + string.digits + "_", min_size=1, max_size=8)
paths = st.lists(names, min_size=1, max_size=3).map("/".join)
releases = st.dictionaries(paths, st.binary(max_size=64), min_size=1, max_size=8)


@given(releases)
def test_a_signed_manifest_reads_back_as_signed(files: dict[str, bytes]) -> None:
    manifest = make("1.2.3", files.items(), KEY)
    read = Manifest.parse(manifest.to_json(), "manifest.json")
    assert read == manifest
    assert read.holds(KEY.key.public_key())
    assert not read.holds(OTHER.key.public_key())
    assert read.paths() == sorted(files)


@given(releases, st.data())
def test_any_change_to_what_is_signed_breaks_the_signature(files: dict[str, bytes],
                                                           data: st.DataObject) -> None:
    manifest = make("1.2.3", files.items(), KEY)
    index = data.draw(st.integers(0, len(manifest.files) - 1))
    path, sha = manifest.files[index]
    flipped = sha[:-1] + ("0" if sha[-1] != "0" else "1")
    changed = [(*manifest.files[:index], (path, flipped), *manifest.files[index + 1:]),
               manifest.files[:index] + manifest.files[index + 1:]]
    for files_now in changed:
        if files_now:
            assert not Manifest("1.2.3", files_now, manifest.signature).holds(
                KEY.key.public_key())
    assert not Manifest("1.2.4", manifest.files, manifest.signature).holds(KEY.key.public_key())


def test_a_manifest_re_signed_by_another_key_does_not_hold() -> None:
    mine = make("1.0", [("controller/a.py", b"x")], KEY)
    theirs = make("1.0", [("controller/a.py", b"y")], OTHER)
    assert not theirs.holds(KEY.key.public_key())
    assert not Manifest(mine.version, theirs.files, mine.signature).holds(KEY.key.public_key())


def _document(**change: object) -> str:
    data: dict[str, object] = json.loads(make("1.0", [("a/b.py", b"")], KEY).to_json())
    data.update(change)
    return json.dumps(data)


@pytest.mark.parametrize(("change", "named"), [
    ({"format": "tablectl release 2"}, "format"),
    ({"version": "1.0/../x"}, "version"),
    ({"version": ""}, "version"),
    ({"files": []}, "files"),
    ({"files": [["../etc/passwd", "0" * 64]]}, "files[0]: path"),
    ({"files": [["/etc/passwd", "0" * 64]]}, "files[0]: path"),
    ({"files": [["a/./b", "0" * 64]]}, "files[0]: path"),
    ({"files": [["a\\b", "0" * 64]]}, "files[0]: path"),
    ({"files": [["a/b", "0" * 63]]}, "files[0]: sha256"),
    ({"files": [["a/b", "A" * 64]]}, "files[0]: sha256"),
    ({"files": [["b", "0" * 64], ["a", "0" * 64]]}, "files[1]: a: not after b"),
    ({"files": [["a", "0" * 64], ["a", "0" * 64]]}, "files[1]: a: not after a"),
    ({"files": [["a", "0" * 64, "x"]]}, "files[0]: not a [path, sha256] pair"),
    ({"signature": "00"}, "signature"),
    ({"extra": 1}, "extra: not a field"),
])
def test_a_wrong_field_is_named(change: dict[str, object], named: str) -> None:
    with pytest.raises(ManifestError, match=r"^manifest\.json: " + named.replace("[", r"\[")
                       .replace("]", r"\]")):
        Manifest.parse(_document(**change), "manifest.json")


@given(st.text(max_size=200) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4)).map(json.dumps))
def test_garbage_is_refused_as_a_manifest_error_only(text: str) -> None:
    try:
        Manifest.parse(text, "m")
    except ManifestError as error:
        assert str(error).startswith("m: ")


def test_json_nested_past_the_interpreter_s_depth_is_a_manifest_error() -> None:
    with pytest.raises(ManifestError, match="nested too deep"):
        Manifest.parse("[" * 100_000 + "]" * 100_000, "m")


@given(releases, st.data())
def test_the_seeded_digest_reads_every_byte_name_and_place(files: dict[str, bytes],
                                                            data: st.DataObject) -> None:
    order = sorted(files)
    answer = seeded_digest(SEED, order, files.__getitem__)
    assert seeded_digest(SEED, order, files.__getitem__) == answer
    assert seeded_digest(SEED[::-1], order, files.__getitem__) != answer
    path = data.draw(st.sampled_from(order))
    grown = {**files, path: files[path] + b"\0"}
    assert seeded_digest(SEED, order, grown.__getitem__) != answer
    assert seeded_digest(SEED, [p for p in order if p != path], files.__getitem__) != answer
    if len(order) > 1:
        assert seeded_digest(SEED, order[::-1], files.__getitem__) != answer
    moved = {(p + "x" if p == path else p): content for p, content in files.items()}
    if path + "x" not in files:
        assert seeded_digest(SEED, [p + "x" if p == path else p for p in order],
                             moved.__getitem__) != answer


@pytest.mark.parametrize("length", [0, 15, 65])
def test_a_seed_too_short_or_too_long_is_refused(length: int) -> None:
    with pytest.raises(ValueError, match="seed"):
        seeded_digest(bytes(length), ["a"], lambda path: b"")
