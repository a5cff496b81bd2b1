"""The unit file passes `systemd-analyze verify` and has what the issue names: Type=notify, a
watchdog, Restart=always, hardening that still allows serial, USB and input devices (DeviceAllow
and the dialout/plugdev/input groups, no PrivateDevices), logs to journald. The udev rules name
both devices."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "tablectl.service"


def test_unit_verifies(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is needed (.ci/run installs systemd)"
    tablectl = Path(sys.executable).with_name("tablectl")
    unit = tmp_path / "tablectl.service"
    unit.write_text(UNIT.read_text().replace("/opt/tablectl/venv/bin/tablectl", str(tablectl)))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "tablectl.service" not in result.stderr, result.stderr


def test_unit_has_what_a_table_needs() -> None:
    text = UNIT.read_text()
    settings = dict(re.findall(r"^(\w+)=(.*)$", text, re.M))
    assert settings["Type"] == "notify" and settings["Restart"] == "always"
    assert int(settings["WatchdogSec"]) > 0 and settings["StandardOutput"] == "journal"
    assert settings["SupplementaryGroups"] == "dialout plugdev input"  # input: card readers
    assert "PrivateDevices" not in settings
    allowed = re.findall(r"^DeviceAllow=(\S+) rw$", text, re.M)
    assert {"char-ttyUSB", "char-usb_device"} <= set(allowed)
    assert "char-input" in re.findall(r"^DeviceAllow=(\S+) r$", text, re.M)
    assert "--config /etc/tablectl/table.toml" in settings["ExecStart"]


def test_udev_rules_name_the_shoe_and_the_pads() -> None:
    rules = [line for line in (ROOT / "systemd" / "99-tablectl.rules").read_text().splitlines()
             if line and not line.startswith("#")]
    assert any('SUBSYSTEM=="tty"' in r and "tablectl-shoe" in r and 'GROUP="dialout"' in r
               for r in rules)
    assert any('SUBSYSTEM=="usb"' in r and "tablectl-pads" in r and 'GROUP="plugdev"' in r
               for r in rules)
    assert any('SUBSYSTEM=="usb"' in r and "tablectl-tray" in r and 'GROUP="plugdev"' in r
               for r in rules)


@pytest.mark.slow
def test_floor_unit_verifies_and_runs_floor_serve(tmp_path: Path) -> None:
    """The floor's unit (issue 12): `systemd-analyze verify` passes on an instance, and it runs
    `tablectl floor serve` under the instance's name with the broker, database, the floor's
    secret group, and the instance's own certificate (its common name is its client id)."""
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is needed (.ci/run installs systemd)"
    template = (ROOT / "systemd" / "tablectl-floor@.service").read_text()
    tablectl = Path(sys.executable).with_name("tablectl")
    env = tmp_path / "floor.env"
    env.write_text("BROKER=mqtts://floor:8883\nDATABASE=postgresql:///floor\nPORT=8090\n"
                   "TABLECTL_FLOOR_GROUP=0123456789abcdef\n")
    unit = tmp_path / "tablectl-floor@a.service"
    unit.write_text(template.replace("/opt/tablectl/venv/bin/tablectl", str(tablectl))
                    .replace("/etc/tablectl/floor.env", str(env)))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "tablectl-floor@a.service" not in result.stderr, result.stderr
    start = " ".join(re.search(r"^ExecStart=(.*?)(?<!\\)$", template, re.M | re.S)
                     .group(1).replace("\\\n", " ").split())  # type: ignore[union-attr]
    assert start.startswith("/opt/tablectl/venv/bin/tablectl floor serve --name %i ")
    assert "--group" not in start  # the secret stays off the command line: the environment
    assert re.search(r"^Type=notify$", template, re.M) and "WatchdogSec=" in template
    for option in ("--broker ${BROKER}", "--db ${DATABASE}", "--ca",
                   "--cert /etc/tablectl/certs/tablectl-floor-%i.crt",
                   "--key /etc/tablectl/certs/tablectl-floor-%i.key"):
        assert option in start
