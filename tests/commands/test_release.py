"""Issue 50, part 3: `tablectl release keygen`, `tablectl release sign` (a wheel or an installed
tree) and `tablectl verify`, a line a file and a summary, exit 0 only when all holds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from controller.commands.main import main
from release.installed import PACKAGES
from release.manifest import Manifest

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60


def tablectl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`tablectl ARGS` in this process: its exit (argparse's refusals too), out and err."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def signed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A copy of the packages as an installed tree (`site`), signed with a new release key,
    and a table's configuration naming the key and the manifest."""
    site = tmp_path / "site"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, site / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    code, out, err = tablectl(capsys, "release", "keygen", "--key", str(tmp_path / "rel.key"))
    assert code == 0, err
    assert out.startswith(f"release key {tmp_path}/rel.key (readable by this user only), "
                          f"public key {tmp_path}/rel.key.pub, fingerprint ")
    code, out, err = tablectl(capsys, "release", "sign", str(site), "--key",
                              str(tmp_path / "rel.key"), "--release", "0.2.0",
                              "--out", str(tmp_path / "release.json"))
    assert code == 0, err
    assert err.startswith(f"tablectl 0.2.0: {len(manifest_of(tmp_path).files)} files of {site} "
                          "signed by the key of fingerprint ")
    (tmp_path / "table.toml").write_text(
        '[table]\ngame = "blackjack"\n[integrity]\npublic_key = "rel.key.pub"\n'
        'manifest = "release.json"\n')
    return tmp_path


def manifest_of(folder: Path) -> Manifest:
    return Manifest.parse((folder / "release.json").read_text(), "release.json")


def verify(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`tablectl verify` of the signed tree, as a lab runs it: its own process."""
    return subprocess.run([sys.executable, "-m", "controller", "verify", "--config",
                           str(folder / "table.toml"), "--root", str(folder / "site"), *args],
                          capture_output=True, text=True, cwd=folder, timeout=WAIT_S)


def test_verify_prints_a_line_a_file_and_exits_0_when_all_holds(signed: Path) -> None:
    result = verify(signed)
    assert result.returncode == 0, result.stderr
    *lines, summary = result.stdout.splitlines()
    assert lines == [f"ok {path}" for path in manifest_of(signed).paths()]
    assert summary == (f"{signed}/site: tablectl 0.2.0 against {signed}/release.json (key "
                       f"{signed}/rel.key.pub): {len(lines)} files hold")


def test_verify_names_each_file_that_is_not_the_release_s(signed: Path) -> None:
    """A byte changed, a file removed and one added: each on its line, the summary counts
    them, exit 1; the same in JSON."""
    site = signed / "site"
    cards = site / "controller" / "game" / "cards.py"
    cards.write_bytes(cards.read_bytes().replace(b"\n", b"\n ", 1))
    (site / "floor" / "pit" / "tables.py").unlink()
    (site / "protocol" / "backdoor.py").write_text("import os\n")
    result = verify(signed)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line for line in lines if not line.startswith("ok ")] == [
        "CHANGED controller/game/cards.py", "MISSING floor/pit/tables.py",
        "EXTRA protocol/backdoor.py",
        f"{site}: tablectl 0.2.0 against {signed}/release.json (key {signed}/rel.key.pub): "
        f"{len(manifest_of(signed).files) - 2} files hold, NOT the release's: 1 CHANGED, "
        "1 EXTRA, 1 MISSING"]
    result = verify(signed, "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["holds"] is False and report["release"] == "0.2.0"
    assert report["findings"] == [
        {"path": "controller/game/cards.py", "problem": "CHANGED",
         "said": "controller/game/cards.py: changed since the release was signed"},
        {"path": "floor/pit/tables.py", "problem": "MISSING",
         "said": "floor/pit/tables.py: missing: the release has it"},
        {"path": "protocol/backdoor.py", "problem": "EXTRA",
         "said": "protocol/backdoor.py: not part of the release"}]


def test_verify_names_a_manifest_signed_by_another_key(
        signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl(capsys, "release", "keygen", "--key", str(signed / "other.key"))[0] == 0
    code, _, err = tablectl(capsys, "release", "sign", str(signed / "site"), "--key",
                            str(signed / "other.key"), "--release", "0.2.0",
                            "--out", str(signed / "release.json"))
    assert code == 0, err
    code, out, _ = tablectl(capsys, "verify", "--config", str(signed / "table.toml"),
                            "--root", str(signed / "site"))
    assert code == 1
    assert f"BAD SIGNATURE {signed}/release.json" in out.splitlines()


def test_verify_needs_a_release_to_verify_against(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl(capsys, "verify") == (
        2, "", "tablectl: verify: --manifest: which release to verify against: give --config "
               "FILE with [integrity], or --manifest FILE and --public-key FILE\n")
    (tmp_path / "table.toml").write_text('[table]\ngame = "blackjack"\n')
    code, _, err = tablectl(capsys, "verify", "--config", str(tmp_path / "table.toml"))
    assert code == 2 and err.endswith(f"({tmp_path}/table.toml has no [integrity] manifest)\n")


def test_a_wheel_is_signed_as_its_installed_tree(signed: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The wheel's own version, its files of the packages, the .dist-info aside."""
    wheel = signed / "tablectl-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in manifest_of(signed).paths():
            archive.write(signed / "site" / path, path)
        archive.writestr("tablectl-0.2.0.dist-info/METADATA", "Name: tablectl\nVersion: 0.2.0\n")
    code, out, err = tablectl(capsys, "release", "sign", str(wheel), "--key",
                              str(signed / "rel.key"))
    assert code == 0, err
    assert Manifest.parse(out, "-").files == manifest_of(signed).files


@pytest.mark.parametrize(("args", "said"), [
    (["release", "sign", "nowhere.whl", "--key", "rel.key"],
     "tablectl: release sign: nowhere.whl: no such wheel or folder (WHEEL_OR_TREE)"),
    (["release", "sign", "table.toml", "--key", "rel.key"],
     "tablectl: release sign: table.toml: not a wheel (File is not a zip file)"),
    (["release", "sign", "site", "--key", "rel.key.pub"],
     "tablectl: release sign: signing key rel.key.pub: not a PEM private key"),
    (["release", "sign", ".", "--key", "rel.key"],
     "tablectl: release sign: .: none of the packages controller, devices, drivers, "
     "simulators, floor, protocol, plumbing, release is there"),
    (["release", "keygen", "--key", "rel.key"],
     "tablectl: release keygen: rel.key: exists already, and is never written over: name a "
     "new file (--key)"),
    (["verify", "--manifest", "rel.key.pub", "--public-key", "rel.key.pub"], None),
])
def test_what_cannot_be_signed_or_verified_is_said_in_one_line(
        signed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        args: list[str], said: str | None) -> None:
    monkeypatch.chdir(signed)
    code, out, err = tablectl(capsys, *args)
    if said is None:  # not a manifest: a finding, exit 1
        assert code == 1 and out.startswith("NO MANIFEST rel.key.pub (rel.key.pub: not JSON")
    else:
        assert (code, err) == (2, said + "\n")
