"""Issue 50, part 3: the software checked at the table's start, as `[integrity]` says: how it is
checked (required, warn, off, and the defaults: required where `[integrity]` is, warn for the
demo and a development checkout, said once in the log), what a finding does in each, and
`[integrity]` refused by `tablectl config check` naming the file, the key and the reason.
"required" latches each finding: the table starts in the integrity error, DO NOT DEAL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from controller.commands.main import main
from controller.commands.run import _release
from controller.daemon import config_file
from controller.daemon.software import (
    ROOT,
    check_at_start,
    checkout,
    mode,
    words,
)
from controller.journal.signing import Signer, keygen
from plumbing.checked_files import PEM_KEY, read_text
from release.installed import Finding, Problem, tree_files
from release.manifest import make
from tests.daemon.test_run import FakeSystemd, snapshot, start, stop, systemd  # noqa: F401

WAIT_S = 60


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """An installed tree of two packages, its release's key and signed manifest, and a table's
    configuration beside them naming both."""
    site = tmp_path / "site"
    for path in ("controller/__init__.py", "controller/game/cards.py", "floor/__init__.py"):
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(f"# {path}\n")
    keygen(tmp_path / "release.key")
    signer = Signer.from_pem(read_text(tmp_path / "release.key", PEM_KEY), tmp_path)
    (tmp_path / "release.json").write_text(make("0.2.0", tree_files(site), signer).to_json())
    return write(tmp_path, "")


def write(folder: Path, software: str) -> Path:
    config = folder / "table.toml"
    config.write_text('[table]\ngame = "blackjack"\n[integrity]\n' + software +
                      'public_key = "release.key.pub"\nmanifest = "release.json"\n')
    return config


def test_the_defaults_where_the_configuration_is_silent(tmp_path: Path, table: Path) -> None:
    site = tmp_path / "site"
    assert (mode(None, site).software, mode(None, site).why) == ("warn", "the demo")
    bare = tmp_path / "bare.toml"
    bare.write_text('[table]\ngame = "blackjack"\n')
    assert mode(config_file.load(bare), site).software == "warn"  # nothing to check against
    assert mode(config_file.load(table), site).software == "required"
    assert not checkout(site) and checkout(ROOT)  # the tests run from the project's tree
    assert mode(config_file.load(table), ROOT).software == "warn"
    assert "a development checkout" in mode(config_file.load(table), ROOT).why
    for chosen in ("required", "warn", "off"):
        assert mode(config_file.load(write(tmp_path, f'software = "{chosen}"\n')),
                    ROOT).software == chosen


def test_a_release_that_holds_starts_and_says_so_once(tmp_path: Path, table: Path) -> None:
    with capture_logs() as logs:
        assert check_at_start(config_file.load(table), tmp_path / "site") == []
    assert [(log["event"], log.get("software"), log.get("files")) for log in logs] == [
        ("software checked", "required", 3)]


def test_required_latches_each_finding_naming_its_file(tmp_path: Path, table: Path) -> None:
    site = tmp_path / "site"
    (site / "controller" / "game" / "cards.py").write_text("# mine\n")
    (site / "floor" / "__init__.py").unlink()
    (site / "controller" / "evil.py").write_text("")
    with capture_logs() as logs:
        found = check_at_start(config_file.load(table), site)
    assert [(f.check, f.where, str(f.text)) for f in found] == [
        ("software", "controller/evil.py", "controller/evil.py: not part of the release"),
        ("software", "controller/game/cards.py",
         "controller/game/cards.py: changed since the release was signed"),
        ("software", "floor/__init__.py", "floor/__init__.py: missing: the release has it")]
    # A file changed again after a supervisor cleared it is a new finding: known by its bytes.
    (site / "controller" / "game" / "cards.py").write_text("# mine, again\n")
    again = check_at_start(config_file.load(table), site)
    assert [f.evidence for f in again] != [f.evidence for f in found]
    assert [f.key for f in again][::2] == [f.key for f in found][::2]
    assert [(log["log_level"], log.get("file")) for log in logs] == [
        ("info", None), ("warning", "controller/evil.py"),
        ("warning", "controller/game/cards.py"), ("warning", "floor/__init__.py")]
    assert logs[2]["said"] == "controller/game/cards.py: changed since the release was signed"
    assert logs[2]["said"].template == "{file}: changed since the release was signed"


def test_warn_logs_each_finding_and_starts(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    (tmp_path / "site" / "controller").mkdir(parents=True)
    (tmp_path / "site" / "controller" / "x.py").write_text("")
    keygen(tmp_path / "release.key")
    write(tmp_path, 'software = "warn"\n')
    (tmp_path / "release.json").write_text(json.dumps({
        "format": "tablectl release 1", "version": "1", "files": [
            ["controller/x.py", "0" * 64]]}))
    with capture_logs() as logs:
        assert check_at_start(config_file.load(config), tmp_path / "site") == []
    assert [(log["log_level"], log.get("file"), log.get("problem")) for log in logs] == [
        ("info", None, None), ("warning", f"{tmp_path}/release.json", Problem.UNSIGNED),
        ("warning", "controller/x.py", Problem.CHANGED)]


def test_off_checks_nothing(tmp_path: Path, table: Path) -> None:
    (tmp_path / "release.json").write_text("not a manifest")
    config = write(tmp_path, 'software = "off"\n')
    with capture_logs() as logs:
        assert check_at_start(config_file.load(config), tmp_path / "site") == []
    assert [(log["event"], log["log_level"]) for log in logs] == [
        ("software not checked", "debug")]


def test_a_key_or_manifest_that_cannot_be_read_is_a_finding(tmp_path: Path,
                                                            table: Path) -> None:
    (tmp_path / "release.key.pub").write_text("not a key")
    found = check_at_start(config_file.load(table), tmp_path / "site")
    assert len(found) == 1 and "release.key.pub" in found[0].text
    (tmp_path / "release.key.pub").unlink()
    found = check_at_start(config_file.load(table), tmp_path / "site")
    assert len(found) == 1 and "release.key.pub" in found[0].text


@pytest.mark.parametrize("finding", [Finding("a/b.py", problem) for problem in Problem])
def test_each_finding_is_a_sentence_naming_its_file(finding: Finding) -> None:
    said = words(Finding(finding.path, finding.problem, "a/b.py: a reason"))
    assert "a/b.py" in said and said.template != str(said)


def test_a_planted_name_is_shown_escaped() -> None:
    said = words(Finding("controller/\x1b[2Jx\udcff.py", Problem.EXTRA))
    assert said == "controller/\\x1b[2Jx\\udcff.py: not part of the release"


def config_check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`tablectl config check PATH`: its exit, its output and its refusal."""
    code = main(["config", "check", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("software", "change", "said"), [
    ('software = "yes"\n', None, "integrity.software: 'yes' is not one of required, warn, off"),
    ("software = true\n", None, "integrity.software: 'True' is not one of required, warn, off"),
    ('software = "warn"\nhash = "sha1"\n', None,
     "integrity.hash: unknown key (known: software, public_key, manifest)"),
    ("", ("public_key", None), "integrity.public_key: missing: the software is checked"),
    ("", ("manifest", None), "integrity.manifest: missing: the software is checked"),
    ("", ("public_key", "gone.pub"), "integrity.public_key: {dir}/gone.pub: no such file"),
    ("", ("public_key", "release.json"), "integrity.public_key: "),
    ("", ("public_key", "other.key.pub"), "integrity.manifest: {dir}/release.json: not signed "
                                          "by the key in {dir}/other.key.pub"),
    ("", ("manifest", "release.key.pub"), "integrity.manifest: {dir}/release.key.pub: not "
                                          "JSON"),
    ("", ("manifest", "unsigned.json"), "integrity.manifest: {dir}/unsigned.json: not signed"),
    ("", ("manifest", "deep.json"), "integrity.manifest: {dir}/deep.json: nested too deep"),
])
def test_config_check_refuses_a_bad_integrity_naming_file_key_and_reason(
        tmp_path: Path, table: Path, software: str, change: tuple[str, str | None] | None,
        said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert config_check(table, capsys)[0] == 0
    keygen(tmp_path / "other.key")
    unsigned = json.loads((tmp_path / "release.json").read_text())
    del unsigned["signature"]
    (tmp_path / "unsigned.json").write_text(json.dumps(unsigned))
    (tmp_path / "deep.json").write_text("[" * 100_000)
    text = write(tmp_path, software).read_text()
    if change is not None:
        key, value = change
        text = "".join(line for line in text.splitlines(keepends=True)
                       if not line.startswith(key))
        text += "" if value is None else f'{key} = "{value}"\n'
    table.write_text(text)
    code, out, err = config_check(table, capsys)
    assert code == 2, out
    assert err.startswith(f"tablectl: config check: {table}: {said.format(dir=tmp_path)}"), err


def test_config_check_says_how_the_software_is_checked(
        tmp_path: Path, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = config_check(table, capsys)
    assert code == 0, err
    assert (f"; software checked at start against {tmp_path}/release.json, signed by the key "
            f"in {tmp_path}/release.key.pub (required)") in out
    code, out, err = config_check(write(tmp_path, 'software = "off"\n'), capsys)
    assert '; software not checked ([integrity] software = "off")' in out


@pytest.mark.slow
def test_a_table_not_running_its_release_starts_latched(tmp_path: Path,
                                                        systemd: FakeSystemd) -> None:  # noqa: F811
    """The table's start, the project's own tree checked: a manifest that lacks one of its
    files (signed by the release's key all the same) and "required": the table comes up in the
    integrity error, DO NOT DEAL naming the file, latched in its file beside the journal."""
    keygen(tmp_path / "release.key")
    signer = Signer.from_pem(read_text(tmp_path / "release.key", PEM_KEY), tmp_path)
    files = [(path, data) for path, data in tree_files(ROOT) if path != "release/installed.py"]
    (tmp_path / "release.json").write_text(make("0.2.0", files, signer).to_json())
    config = write(tmp_path, 'software = "required"\n')
    config.write_text(config.read_text() + '[journal]\npath = "journal.sqlite3"\n')
    proc = start(["--config", str(config), "--port", "0"], systemd, tmp_path)
    try:
        systemd.wait_for("READY=1")
        assert proc.stdout is not None
        url = proc.stdout.readline().split("dealer display at ")[1].strip()
        shown = json.dumps(snapshot(url))
        assert "DO NOT DEAL: release/installed.py: not part of the release" in shown
    finally:
        code, _ = stop(proc)
    assert code == 0
    latched = json.loads((tmp_path / "journal.sqlite3.integrity").read_text())["latched"]
    assert [(f["check"], f["where"]) for f in latched] == [("software", "release/installed.py")]


def test_the_configured_manifest_is_what_the_table_answers_the_floor_from(
        tmp_path: Path, table: Path) -> None:
    """Issue 50, part 4: `tablectl run` hands its floor link the release `[integrity]` names;
    one that cannot be read answers that there is none (its finding is latched at start)."""
    release = _release(config_file.load(table))
    assert release is not None and release.manifest is not None
    assert release.manifest.paths() == ["controller/__init__.py", "controller/game/cards.py",
                                        "floor/__init__.py"]
    (tmp_path / "release.json").write_text("not a manifest")
    assert _release(config_file.load(table)) is None
    assert _release(None) is None
