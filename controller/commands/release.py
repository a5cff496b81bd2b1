"""`tablectl release ...` and `tablectl verify`: a release signed, and a table's software checked
against it on demand (issue 50, docs/release.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from controller.commands.common import EXIT_BROKEN, config_of, counted, os_error
from controller.commands.inputs import Folder, NewFile, TextFile, WheelOrTree
from plumbing.checked_files import CONFIGURATION, MANIFEST, PEM_KEY, BadInput, read_text


def cmd_release_keygen(args: argparse.Namespace) -> int:
    from controller.journal import JournalError
    from controller.journal.signing import keygen
    try:
        public, fingerprint = keygen(args.key)
    except JournalError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        raise BadInput(os_error(exc, {"--key": args.key})) from None
    print(f"release key {args.key} (readable by this user only), public key {public}, "
          f"fingerprint {fingerprint}; sign with `tablectl release sign WHEEL --key "
          f"{args.key}`, and give each table the public key ([integrity] public_key)")
    return 0


def cmd_release_sign(args: argparse.Namespace) -> int:
    from controller.journal import JournalError
    from controller.journal.signing import Signer
    from release.installed import ReleaseError, tree_files, version_of, wheel_files
    from release.manifest import ManifestError, make
    try:
        signer = Signer.from_pem(read_text(args.key, PEM_KEY), args.key)
    except JournalError as exc:
        raise BadInput(str(exc)) from None
    try:  # the files first: a source that is not a release is said as such
        files = list(tree_files(args.source) if args.source.is_dir() else
                     wheel_files(args.source))
        version = args.release or version_of(args.source)
        if version is None:
            raise BadInput(f"{args.source}: its version is not said in it (no .dist-info, no "
                           "pyproject.toml of tablectl): give --release VERSION")
        manifest = make(version, files, signer)
    except (ReleaseError, ManifestError) as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:  # a file of the tree this user cannot read
        raise BadInput(os_error(exc, {"WHEEL_OR_TREE": args.source})) from None
    if args.out is None:
        sys.stdout.write(manifest.to_json())
    else:
        try:
            args.out.write_text(manifest.to_json())
        except OSError as exc:
            raise BadInput(os_error(exc, {"--out": args.out})) from None
    print(f"tablectl {version}: {counted(len(manifest.files), 'file')} of {args.source} signed "
          f"by the key of fingerprint {signer.fingerprint}"
          f"{f', manifest {args.out}' if args.out else ''}", file=sys.stderr)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Every file of the packages against the release's signed manifest: a line a file, the
    findings' after those that hold, then a summary; exit 1 unless everything holds."""
    from controller.daemon.config_file import IntegrityConfig
    from controller.daemon.software import ROOT, verified, words
    from plumbing.checked_files import MANIFEST, PEM_KEY, read_text
    for given, kind in ((args.manifest, MANIFEST), (args.public_key, PEM_KEY)):
        if given is not None:  # one that is no such file is named now, before the pair
            read_text(given, kind)
    configured = (config_of(args).integrity if args.config else None) or IntegrityConfig()
    integrity = IntegrityConfig(public_key=args.public_key or configured.public_key,
                                manifest=args.manifest or configured.manifest)
    if integrity.manifest is None or integrity.public_key is None:
        missing = "--manifest" if integrity.manifest is None else "--public-key"
        where = f" ({args.config} has no [integrity] {missing[2:].replace('-', '_')})" \
            if args.config else ""
        raise BadInput(f"{missing}: which release to verify against: give --config FILE with "
                       f"[integrity], or --manifest FILE and --public-key FILE{where}")
    root = args.root or ROOT
    checked = verified(integrity, root)
    lines = [("ok", path, "") for path in checked.holding] + [
        (str(f.problem), f.path, f.detail) for f in checked.findings]
    lines.sort(key=lambda line: line[1])
    holds = not checked.findings
    kinds = Counter(str(finding.problem) for finding in checked.findings)
    summary = (f"{root}: tablectl {checked.version or '?'} against {integrity.manifest} "
               f"(key {integrity.public_key}): {counted(len(checked.holding), 'file')} "
               f"{'holds' if len(checked.holding) == 1 else 'hold'}"
               + ("" if holds else ", NOT the release's: " + ", ".join(
                   f"{count} {kind}" for kind, count in sorted(kinds.items()))))
    if args.json:
        json.dump({"root": str(root), "release": checked.version,
                   "manifest": str(integrity.manifest), "public_key": str(integrity.public_key),
                   "holds": holds, "files": [
                       {"path": path, "status": status, **({"detail": detail} if detail else {})}
                       for status, path, detail in lines],
                   "findings": [{"path": f.path, "problem": str(f.problem), "said": words(f)}
                                for f in checked.findings]}, sys.stdout, indent=1)
        print()
    else:
        for status, path, detail in lines:
            shown = path if path.isprintable() else ascii(path)[1:-1]
            print(f"{status} {shown}{f' ({detail})' if detail else ''}")
        print(summary)
    return 0 if holds else EXIT_BROKEN


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`: `release keygen`, `release sign`."""
    release = commands.add_parser("release", help="a release's key and signed manifest")
    release_commands = release.add_subparsers(dest="release_command", required=True)
    keygen = release_commands.add_parser(
        "keygen", help="make a release signing key (Ed25519) and its public key (KEY.pub)")
    keygen.add_argument("--key", type=NewFile(replace=False), required=True, metavar="PATH",
                        help="where the key goes (never written over)")
    keygen.set_defaults(func=cmd_release_keygen)
    sign = release_commands.add_parser(
        "sign", help="the signed manifest of a built wheel or an installed tree: each file of "
        "the packages (code and data) with its SHA-256")
    sign.add_argument("source", type=WheelOrTree(), metavar="WHEEL_OR_TREE",
                      help="a .whl, or a folder the packages are installed in (a "
                           "site-packages, a checkout)")
    sign.add_argument("--key", type=TextFile(PEM_KEY), required=True, metavar="KEY",
                      help="the release's signing key (`tablectl release keygen`)")
    sign.add_argument("--out", type=NewFile(), metavar="FILE",
                      help="where the manifest goes (default: standard output)")
    sign.add_argument("--release", metavar="VERSION",
                      help="the version signed (default: the wheel's or the tree's own)")
    sign.set_defaults(func=cmd_release_sign)


def add_verify(commands: argparse._SubParsersAction[Any]) -> None:
    """`tablectl verify`."""
    verify = commands.add_parser(
        "verify", help="check every file of the installed software against the release's "
        "signed manifest, a line a file; exit 1 unless all hold")
    verify.add_argument("--config", type=TextFile(CONFIGURATION), metavar="FILE",
                        help="a table configuration: its [integrity] manifest and public key")
    verify.add_argument("--manifest", type=TextFile(MANIFEST), metavar="FILE",
                        help="the release's signed manifest (over the configuration's)")
    verify.add_argument("--public-key", type=TextFile(PEM_KEY), metavar="FILE",
                        help="the release's public key (over the configuration's)")
    verify.add_argument("--root", type=Folder(), metavar="DIR",
                        help="the folder the packages are installed in (default: those of "
                             "this tablectl)")
    verify.add_argument("--json", action="store_true", help="JSON instead of text")
    verify.set_defaults(func=cmd_verify)
