"""`tablectl doctor`: what an installer gets wrong, each with how to fix it.

Checks: the Python and the packages a table needs, the configuration, the shoe's device
(present, readable and writable, the dialout group, unless root), the pads (libusb, present,
permissions, the plugdev group), the card readers (present, readable, the input group), the
udev rule, the journal (writable, and its chain verified), the signing key (the
configuration's, or the demo's), the floor link (messages the floor lacks, messages refused
for good), the clock (synchronised), the display (reachable). Exits 1 if any check fails;
warnings alone exit 0.

Without --config it checks the demo's machine (issue 48: it failed there on the udev rule and
on a journal folder the demo makes itself): what the demo needs (a pseudo-terminal for its
virtual shoe, the simulators, its journal's folder, its display's port) must hold; what only a
real table needs (the udev rule, the dialout and plugdev groups) is a warning.
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.commands.common import default_journal
from controller.commands.inputs import (
    JournalPath,
    TextFile,
)
from plumbing.checked_files import CONFIGURATION

if TYPE_CHECKING:  # the daemon's modules load when the doctor runs, not for every command
    from controller.daemon.config_file import JournalConfig, RunConfig, UsbConfig

UDEV_RULE = Path("/etc/udev/rules.d/99-tablectl.rules")
SERVICE_USER = "tablectl"  # systemd/tablectl.service's User=
PYTHON = (3, 11)  # pyproject's requires-python
A_REAL_TABLE = "a real table's devices need it; the demo does not"


@dataclass(frozen=True)
class Finding:
    level: str  # ok, warn, FAIL
    check: str
    detail: str
    fix: str = ""


def as_service_user(command: str) -> str:
    """`command` as the service user runs it, if that user exists here and is not this one;
    else as this user (a test bench, the demo: no such user to name)."""
    try:
        uid = pwd.getpwnam(SERVICE_USER).pw_uid
    except KeyError:
        return command
    return command if uid == os.geteuid() else f"sudo -u {SERVICE_USER} {command}"


def _in_group(name: str) -> bool:
    try:
        group = grp.getgrnam(name)
    except KeyError:
        return False
    return group.gr_gid in os.getgroups() or group.gr_gid == os.getgid()


def check_python() -> list[Finding]:
    """The interpreter, and each package a table needs (the `analysis` extra: a warning, as
    the table's own at its start)."""
    from importlib import metadata

    from controller.daemon.protection import NEEDS_ANALYSIS
    version = ".".join(map(str, sys.version_info[:3]))
    findings = [Finding("ok" if sys.version_info >= PYTHON else "FAIL", "python",
                        f"{version} at {sys.executable}",
                        f"Python {'.'.join(map(str, PYTHON))} or newer")]
    try:
        wanted = [req for req in metadata.requires("tablectl") or [] if "extra ==" not in req]
    except metadata.PackageNotFoundError:
        return [*findings, Finding("FAIL", "packages", "tablectl is not installed in this "
                                   "Python", "pip install -e . (from the checkout)")]
    missing = []
    for requirement in wanted:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        try:
            metadata.version(name[0] if name else requirement)
        except metadata.PackageNotFoundError:
            missing.append(name[0] if name else requirement)
    findings.append(Finding("FAIL", "packages", f"missing: {', '.join(missing)}",
                            "pip install -e . (from the checkout)") if missing else
                    Finding("ok", "packages", f"the {len(wanted)} packages a table needs are "
                                                   "installed"))
    try:
        metadata.version("numpy")
    except metadata.PackageNotFoundError:
        findings.append(Finding("warn", "analysis extra", NEEDS_ANALYSIS.partition(": pip")[0],
                                "pip install 'tablectl[analysis]'"))
    return findings


def check_demo() -> list[Finding]:
    """What the demo deals on besides the journal: a pseudo-terminal for its virtual shoe,
    and the simulators (in the checkout's install, not in a table's wheel alone)."""
    findings = []
    try:
        for fd in os.openpty():
            os.close(fd)
        findings.append(Finding("ok", "demo shoe", "a pseudo-terminal opens for the virtual "
                                "shoe"))
    except OSError as exc:
        findings.append(Finding("FAIL", "demo shoe", f"no pseudo-terminal: {exc.strerror}",
                                "mount /dev/pts (a container: run it with a tty)"))
    try:
        import simulators.demo  # noqa: F401  (the demo's table: the rig, the virtual devices)
        findings.append(Finding("ok", "demo", "the simulators load"))
    except ImportError as exc:
        findings.append(Finding("FAIL", "demo", f"the simulators do not load: {exc}",
                                "pip install -e . (from the checkout)"))
    return findings


def check_groups() -> list[Finding]:
    """The groups a real table's devices need, without a configuration to name them: dialout
    (the shoe's serial port), plugdev (the pads, the tray), input (card readers)."""
    if os.geteuid() == 0:  # root opens any device
        return [Finding("ok", "groups", "root: every device opens")]
    lacking = [name for name in ("dialout", "plugdev", "input") if not _in_group(name)]
    if not lacking:
        return [Finding("ok", "groups", "this user is in dialout, plugdev and input")]
    return [Finding("warn", "groups", f"this user is not in {', '.join(lacking)} "
                    f"({A_REAL_TABLE})",
                    f"sudo usermod -aG {','.join(lacking)} $USER (then log in again)")]


def check_config(path: Path | None) -> tuple[list[Finding], RunConfig | None]:
    from controller.daemon import config_file
    if path is None:
        return [Finding("warn", "configuration", "none given: these are the demo's checks "
                        "(`tablectl run` without --config starts the demo table)",
                        "for a real table: tablectl doctor --config /etc/tablectl/table.toml "
                        "(examples/blackjack-table.toml is annotated)")], None
    try:
        config = config_file.load(path)
    except config_file.ConfigError as exc:
        return [Finding("FAIL", "configuration", str(exc),
                        f"fix the key named, then `tablectl config check {path}`")], None
    return [Finding("ok", "configuration", f"{path} is valid")], config


def check_shoe(config: RunConfig) -> list[Finding]:
    if config.shoe is None:
        return [Finding("warn", "shoe", "no shoe configured ([devices.shoe])")]
    url = config.shoe.url
    if not url.startswith("/"):
        return [Finding("ok", "shoe", f"{url} is not a device file; `tablectl monitor shoe "
                        f"--port {url}` shows what it sends")]
    findings = []
    if not os.path.exists(url):
        findings.append(Finding("FAIL", "shoe", f"{url} does not exist",
                                "plug the shoe in; with systemd/99-tablectl.rules installed it "
                                "appears as /dev/tablectl-shoe (`ls -l /dev/serial/by-id/`)"))
    elif not os.access(url, os.R_OK | os.W_OK):
        findings.append(Finding("FAIL", "shoe", f"{url} is not readable and writable by "
                                "this user", "sudo usermod -aG dialout $USER (then log in "
                                "again), or install systemd/99-tablectl.rules"))
    else:
        findings.append(Finding("ok", "shoe", f"{url} present and accessible"))
    if os.geteuid() != 0 and not _in_group("dialout"):  # root opens any device
        findings.append(Finding("warn", "groups", "this user is not in dialout",
                                "sudo usermod -aG dialout $USER"))
    return findings


def check_pads(config: RunConfig) -> list[Finding]:
    if config.pads is None:
        return [Finding("warn", "pads", "no bet-sensor pads configured ([devices.pads])")]
    return check_usb("pads", config.pads, "plug the pads in")


def check_tray(config: RunConfig) -> list[Finding]:
    """An RFID chip tray, where one is configured (a table counts its tray by hand else)."""
    return [] if config.tray is None else check_usb("tray", config.tray,
                                                    "plug the chip tray in")


def check_usb(name: str, device_config: UsbConfig, plug: str) -> list[Finding]:
    """A USB device: libusb there, the device plugged in, and this user allowed to use it."""
    import usb.core
    try:
        device = usb.core.find(idVendor=device_config.vendor, idProduct=device_config.product)
    except usb.core.NoBackendError:
        return [Finding("FAIL", name, "pyusb finds no libusb", "sudo apt install libusb-1.0-0")]
    usb_id = f"{device_config.vendor:04x}:{device_config.product:04x}"
    if device is None:
        return [Finding("FAIL", name, f"no USB device {usb_id}",
                        f"{plug}; `lsusb` lists what is connected")]
    node = f"/dev/bus/usb/{device.bus:03d}/{device.address:03d}"
    if not os.access(node, os.R_OK | os.W_OK):
        return [Finding("FAIL", name, f"{node} ({usb_id}) is not accessible to this user",
                        "install systemd/99-tablectl.rules and add the user to plugdev")]
    return [Finding("ok", name, f"{usb_id} present at {node}")]


def check_readers(config: RunConfig) -> list[Finding]:
    """Each card reader's input device: there and readable (the driver grabs it at the start)."""
    from drivers.input_device import find_named
    findings = []
    for reader in config.readers:
        scheme, _, rest = reader.url.partition("://")
        if scheme == "evdev-socket":
            findings.append(Finding("warn", reader.name, f"{reader.url} is the fake transport "
                                    "(tests and replay), not a reader",
                                    "name the reader's /dev/input/by-id/... path"))
            continue
        path = rest if rest.startswith("/") else find_named(rest.removeprefix("name="))
        if path is None:
            findings.append(Finding("FAIL", reader.name, f"no readable input device named "
                                    f"{rest.removeprefix('name=')!r}",
                                    "plug the reader in; `cat /proc/bus/input/devices` lists "
                                    "names (the input group lets this user read them)"))
        elif not os.path.exists(path):
            findings.append(Finding("FAIL", reader.name, f"{path} does not exist",
                                    "plug the reader in; `ls -l /dev/input/by-id/` lists "
                                    "readers (the one ending -event-kbd)"))
        elif not os.access(path, os.R_OK):
            findings.append(Finding("FAIL", reader.name, f"{path} is not readable by this "
                                    "user", "sudo usermod -aG input $USER (then log in again)"))
        else:
            findings.append(Finding("ok", reader.name, f"{path} present and readable"))
    if config.readers and os.geteuid() != 0 and not _in_group("input"):
        findings.append(Finding("warn", "groups", "this user is not in input (card readers)",
                                "sudo usermod -aG input $USER"))
    return findings


def check_udev(demo: bool = False) -> list[Finding]:
    if UDEV_RULE.exists():
        return [Finding("ok", "udev rule", f"{UDEV_RULE} installed")]
    return [Finding("warn" if demo else "FAIL", "udev rule",
                    f"{UDEV_RULE} is missing{f' ({A_REAL_TABLE})' if demo else ''}",
                    "sudo cp systemd/99-tablectl.rules /etc/udev/rules.d/ && "
                    "sudo udevadm control --reload && sudo udevadm trigger")]


def check_journal(path: Path, demo: bool = False) -> list[Finding]:
    """The journal: its folder writable (the demo makes its own where it may), its chain."""
    folder = path.parent
    if not folder.exists():
        above = next(p for p in folder.parents if p.exists())
        if demo and os.access(above, os.W_OK):
            return [Finding("ok", "journal", f"{path} will be created on the first start, "
                            f"with its folder")]
        return [Finding("FAIL", "journal", f"{folder} does not exist",
                        f"sudo mkdir -p {folder} and give it to the service user")]
    if not os.access(folder, os.W_OK):
        return [Finding("FAIL", "journal", f"{folder} is not writable by this user",
                        f"sudo chown the service user {folder}")]
    if not path.exists():
        return [Finding("ok", "journal", f"{path} will be created on the first start")]
    from controller.journal import JournalError
    from controller.journal.verify import verify_chain
    try:
        count, problem = verify_chain(path)
    except JournalError as exc:
        return [Finding("FAIL", "journal", str(exc), "keep the file; see docs/journal.md")]
    if problem:
        return [Finding("FAIL", "journal", f"{path}: {problem}",
                        "the controller will not deal on it; keep the file for the auditor "
                        "and see docs/journal.md")]
    return [Finding("ok", "journal", f"{path}: {count} records, chain intact")]


def check_key(config: RunConfig | None, path: Path) -> list[Finding]:
    """The signing key: the configuration's, or without one the demo's, which the demo makes
    beside its journal on its first start."""
    if config is None:
        from controller.daemon.config_file import default_key
        demo = default_key(path)
        return [Finding("ok", "signing key", f"{demo} (the demo's)" if demo.exists() else
                        f"{demo}: the demo makes it on its first start")]
    key = config.journal_config.key
    if key is None:
        return [Finding("warn", "signing key", "none configured: day closes are not signed",
                        as_service_user(f"tablectl journal keygen --key "
                                        f"{path.parent / 'table.key'}")
                        + ", then name it in [journal] key")]
    if not key.exists():
        return [Finding("FAIL", "signing key", f"{key} does not exist: the table will not "
                        "start", as_service_user(f"tablectl journal keygen --config "
                                                 f"{config.path}"))]
    if not os.access(key, os.R_OK):
        return [Finding("FAIL", "signing key", f"{key} is not readable by this user",
                        "run doctor as the service user; keep the key 0600")]
    return [Finding("ok", "signing key", str(key))]


def check_days(path: Path, days: JournalConfig) -> list[Finding]:
    """The closed days still to copy out, the disk against its reserve."""
    findings = []
    if path.exists():
        from controller.journal import JournalError
        from controller.journal.archive import days_to_copy
        try:
            waiting = days_to_copy(path)
        except JournalError:
            waiting = 0  # not a journal of this version: check_journal says so
        if waiting:
            findings.append(Finding("warn", "closed days", f"{waiting} not copied out yet (they "
                                    "stay on the table until they are)",
                                    "tablectl journal archive --to DIR"))
    if not path.parent.exists():
        return findings  # check_journal says what to make
    free = shutil.disk_usage(path.parent).free
    reserve = days.reserve_mb * 2**20
    level = "ok" if free >= 2 * reserve else "warn" if free >= reserve else "FAIL"
    findings.append(Finding(level, "disk", f"{free // 2**20} MiB free on the journal's disk "
                            f"(no new round below {days.reserve_mb} MB)",
                            "tablectl journal archive --to DIR; a larger card"))
    return findings


def check_floor(path: Path) -> list[Finding]:
    """What the floor still lacks of this table, and what it will never have as it was: the
    messages the broker (or the link) refused for good."""
    from controller.daemon.floor_bookkeeping import owed
    from controller.journal import JournalError
    from controller.journal.outbox_rows import floor_marks
    if not path.exists():
        return []
    try:
        marks = floor_marks(path)
    except JournalError:
        return []  # not a journal of this version: check_journal says so
    if marks is None:
        return []
    waiting = owed(marks.last_n, marks.through, marks.from_n)
    table = marks.table_id
    findings = [Finding("ok" if waiting <= 0 else "warn", "floor link",
                        f"table {table}: the floor has said it has every message" if
                        waiting <= 0 else f"table {table}: {waiting} messages the floor has "
                        "not said it has", "check the broker and the floor service; they go "
                        "out as soon as it answers")]
    for n, topic, why in marks.refused:
        findings.append(Finding("warn", "floor link", f"message {n} ({topic}) was refused for "
                                f"good: {why}; only a stand-in reached the floor",
                                "the journal keeps it whole: tablectl recall; tell the floor's "
                                "operator"))
    return findings


def check_clock(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run
                ) -> list[Finding]:
    try:
        answer = run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"],
                     capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        answer = ""
    if answer == "yes" or Path("/run/systemd/timesync/synchronized").exists():
        return [Finding("ok", "clock", "synchronised (NTP)")]
    return [Finding("warn", "clock", "not known to be synchronised: journal times (UTC) may "
                    "be wrong", "sudo timedatectl set-ntp true")]


def check_display(config: RunConfig | None) -> list[Finding]:
    import urllib.request  # with its email and http modules: loaded for the doctor alone

    from controller.daemon.config_file import DisplayConfig
    display = config.display if config else DisplayConfig()
    host, port = display.bind, display.port
    token = f"?token={display.token}" if display.token else ""
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', 'localhost') else host}:{port}/health"
    try:
        with urllib.request.urlopen(url + token, timeout=3) as response:
            ok = response.status == 200
    except OSError:
        ok = False
    if ok:
        return [Finding("ok", "display", f"{url} answers")]
    if config is None:  # the demo's: not running is no fault, its port held by another is
        try:
            with socket.create_server((host, port)):
                pass
        except OSError:
            return [Finding("warn", "display", f"port {port} is held by a program that is not "
                            "tablectl", "tablectl run --port 8081 (any free port)")]
        return [Finding("ok", "display", f"port {port} is free for the demo's display")]
    return [Finding("warn", "display", f"{url} does not answer (is tablectl running?)",
                    "sudo systemctl status tablectl")]


def run_checks(config_path: Path | None, journal: Path | None) -> list[Finding]:
    findings, config = check_config(config_path)
    findings = check_python() + findings
    if config is not None:
        findings += check_shoe(config) + check_pads(config) + check_tray(config) + \
            check_readers(config)
    else:
        findings += check_demo() + check_groups()
    findings += check_udev(demo=config is None)
    from controller.daemon.config_file import JournalConfig
    path = journal or (config.journal if config and config.journal else default_journal())
    days = config.journal_config if config else JournalConfig()
    findings += check_journal(path, demo=config is None) + check_key(config, path) + \
        check_days(path, days) + check_floor(path) + check_clock() + check_display(config)
    return findings


def main(config_path: Path | None, journal: Path | None) -> int:
    findings = run_checks(config_path, journal)
    for f in findings:
        print(f"{f.level:>4}  {f.check}: {f.detail}")
        if f.fix and f.level != "ok":
            print(f"      fix: {f.fix}")
    return 1 if any(f.level == "FAIL" for f in findings) else 0


def cmd_doctor(args: argparse.Namespace) -> int:
    return main(args.config, args.journal)


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """The family's commands on `tablectl`."""
    doctor_cmd = commands.add_parser("doctor", help="check what an installer gets wrong")
    doctor_cmd.add_argument("--config", type=TextFile(CONFIGURATION), metavar="FILE",
                            help="the table configuration (default: check the demo's set-up)")
    doctor_cmd.add_argument("--journal", type=JournalPath(existing=False), metavar="PATH",
                            help="the journal (default: the --config's, else "
                                 "$XDG_STATE_HOME/tablectl/journal.sqlite3)")
    doctor_cmd.set_defaults(func=cmd_doctor)
