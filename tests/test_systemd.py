"""The unit file passes `systemd-analyze verify` and has what the issue names: Type=notify, a
watchdog, Restart=always, hardening that still allows serial and USB (DeviceAllow and the
dialout/plugdev groups, no PrivateDevices), logs to journald. The udev rules name both devices."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

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
    assert settings["SupplementaryGroups"] == "dialout plugdev"
    assert "PrivateDevices" not in settings
    allowed = re.findall(r"^DeviceAllow=(\S+) rw$", text, re.M)
    assert {"char-ttyUSB", "char-usb_device"} <= set(allowed)
    assert "--config /etc/tablectl/table.toml" in settings["ExecStart"]


def test_udev_rules_name_the_shoe_and_the_pads() -> None:
    rules = [line for line in (ROOT / "systemd" / "99-tablectl.rules").read_text().splitlines()
             if line and not line.startswith("#")]
    assert any('SUBSYSTEM=="tty"' in r and "tablectl-shoe" in r and 'GROUP="dialout"' in r
               for r in rules)
    assert any('SUBSYSTEM=="usb"' in r and "tablectl-pads" in r and 'GROUP="plugdev"' in r
               for r in rules)
