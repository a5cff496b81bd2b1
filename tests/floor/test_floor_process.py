"""A floor process the operator can see (issue 20): `/health` tells the writer, the database and
the broker apart and answers 503 when one is down; a second process under a running name
refuses before it touches the broker; systemd hears READY and the watchdog; a writer that dies
ends the process; the pit over HTTPS, itself or behind a trusted proxy, with Secure cookies and
https origins; no page may frame it; `floor retire`. Real servers, the real `floor serve`."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from floor.accounts import add_supervisor
from floor.ingest import Ingest
from floor.serve import ServeOptions, serve
from plumbing.broker import parse_broker
from tests.floor.harness import FloorProcess, Sender, one, wait_until
from tests.floor.test_floor import message
from tests.servers import Mosquitto

PASSWORD = "correct horse battery"


def health(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url + "health", timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_health_tells_each_part(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    floor = FloorProcess(broker.url, floor_dsn, "a", tmp_path).start()
    try:
        wait_until(lambda: health(floor.url)[0] == 200, "all three up")
        parts = health(floor.url)[1]
        assert parts["ok"] and {p: parts[p]["up"] for p in ("ingest", "database", "broker")} \
            == {"ingest": True, "database": True, "broker": True}
        assert parts["ingest"]["age_s"] < 30 and parts["broker"]["since"].endswith("Z")
        broker.stop()
        wait_until(lambda: health(floor.url)[0] == 503, "the broker down")
        parts = health(floor.url)[1]
        assert not parts["ok"] and not parts["broker"]["up"] and parts["ingest"]["up"]
        broker.start()
        wait_until(lambda: health(floor.url)[0] == 200, "the broker back")
    finally:
        floor.stop()


def test_a_floor_started_on_no_broker_is_not_healthy(tmp_path: Path, floor_dsn: str) -> None:
    """It serves the pit (which says why it is not live), but /health is 503 from the start."""
    with socket.socket() as nothing:
        nothing.bind(("127.0.0.1", 0))  # a port with nobody listening
        url = f"mqtt://127.0.0.1:{nothing.getsockname()[1]}"
        floor = FloorProcess(url, floor_dsn, "a", tmp_path).start()
        try:
            code, parts = health(floor.url)
            assert code == 503 and not parts["broker"]["up"]
        finally:
            floor.stop()


def test_a_second_process_under_a_running_name_refuses(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    first = FloorProcess(broker.url, floor_dsn, "a", tmp_path).start()
    try:
        wait_until(lambda: health(first.url)[0] == 200, "the first up")
        since = health(first.url)[1]["broker"]["since"]
        second = subprocess.run(first.args, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert "a floor process named 'a' is already running" in second.stderr
        assert health(first.url)[1]["broker"]["since"] == since  # never knocked off
        sender = Sender(broker.port)
        sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 1))
        sender.close()
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM messages") == 1,
                   "the first still storing")
    finally:
        first.stop()


@pytest.mark.parametrize(("name", "fault"), [
    ("a\x01b", "holds the unprintable character U+0001 at 1"),
    ("+cmd", "starts with '+', as a spreadsheet formula does"),
    ("n" * 101, "String should have at most 100 characters")])
@pytest.mark.slow
def test_a_name_the_protocol_refuses_is_refused_at_start(
        tmp_path: Path, broker: Mosquitto, floor_dsn: str, name: str, fault: str) -> None:
    """Issue 34: a floor's name goes in every word it sends the tables; one the protocol would
    refuse is one line and exit 2 at start, not a writer that dies at its first word."""
    process = FloorProcess(broker.url, floor_dsn, name, tmp_path)
    result = subprocess.run(process.args, capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("tablectl: floor serve: --name: ")
    assert result.stderr.rstrip("\n").endswith(fault) and result.stderr.count("\n") == 1


def test_a_port_in_use_is_said_in_one_line(tmp_path: Path, broker: Mosquitto,
                                           floor_dsn: str) -> None:
    """Issue 21: the pit's port held by another program: one line and the way out, exit 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = FloorProcess(broker.url, floor_dsn, "p", tmp_path)
        args = [*process.args[:process.args.index("--port") + 1], str(port),
                *process.args[process.args.index("--port") + 2:]]
        result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        f"tablectl: floor serve: port {port} is in use; choose another with --port")


def test_systemd_hears_ready_and_the_watchdog(tmp_path: Path, broker: Mosquitto,
                                              floor_dsn: str) -> None:
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(address)
        listener.settimeout(30)
        floor = FloorProcess(broker.url, floor_dsn, "a", tmp_path,
                             env={"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "2000000"}).start()
        try:
            heard: list[str] = []
            while not any(m.startswith("WATCHDOG=1") for m in heard):
                heard.append(listener.recv(4096).decode())
            assert heard[0].startswith("READY=1")
        finally:
            floor.stop()


def test_a_writer_that_dies_ends_the_process(broker: Mosquitto, floor_dsn: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Its part says so before anyone is told, and `floor serve` ends with 1 (systemd starts
    it again) rather than stay up and deaf."""
    seen: list[bool] = []

    def broken(self: Ingest) -> list[Any]:
        raise RuntimeError("a bug in the writer")

    monkeypatch.setattr(Ingest, "_next_batch", broken)
    ingest = Ingest(parse_broker(broker.url), floor_dsn, "dies",
                    on_failure=lambda exc: seen.append(ingest.parts["ingest"].up))
    ingest.start()
    wait_until(lambda: bool(seen), "the failure reported")
    assert seen == [False] and not ingest.alive()
    assert "a bug in the writer" in ingest.parts["ingest"].detail
    ingest.stop()
    assert serve(ServeOptions(parse_broker(broker.url), floor_dsn, port=0, name="dies")) == 1


def certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A self-signed certificate for 127.0.0.1: (cert, key, the same cert as the CA)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(1)
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "pit.crt", folder / "pit.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path, cert_path


def login(url: str, origin: str, context: ssl.SSLContext | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, str]:
    """POST a login; (status, its Set-Cookie)."""
    request = urllib.request.Request(url + "api/login", json.dumps(
        {"name": "Dana Pit", "password": PASSWORD}).encode(), {
        "Content-Type": "application/json", "Origin": origin, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            return response.status, response.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as error:
        return error.code, ""


def test_the_pit_over_https(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    cert, key, ca = certificate(tmp_path)
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        add_supervisor(db, "Dana Pit", PASSWORD)
    floor = FloorProcess(broker.url, floor_dsn, "a", tmp_path, "--https-cert", str(cert),
                         "--https-key", str(key)).start()
    try:
        assert floor.url.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(ca))
        host = floor.url.removeprefix("https://").rstrip("/")
        with urllib.request.urlopen(floor.url, timeout=30, context=context) as page:
            assert page.headers["X-Frame-Options"] == "DENY"
            assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert login(floor.url, f"http://{host}", context)[0] == 403  # not this page's origin
        code, cookie = login(floor.url, f"https://{host}", context)
        assert code == 200 and "Secure" in cookie and "HttpOnly" in cookie
    finally:
        floor.stop()


def test_the_pit_behind_a_trusted_proxy(tmp_path: Path, broker: Mosquitto,
                                        floor_dsn: str) -> None:
    """X-Forwarded-Proto is believed from the proxy's address only: from it, an https origin
    is this page's and the cookie is Secure; from anyone else it changes nothing."""
    with psycopg.connect(floor_dsn, autocommit=True) as db:
        add_supervisor(db, "Dana Pit", PASSWORD)
    forwarded = {"X-Forwarded-Proto": "https"}
    for proxy, https_code in (("127.0.0.1", 200), ("10.9.9.9", 403)):
        floor = FloorProcess(broker.url, floor_dsn, f"p{https_code}", tmp_path, "--proxy",
                             proxy).start()
        try:
            host = floor.url.removeprefix("http://").rstrip("/")
            code, cookie = login(floor.url, f"https://{host}", headers=forwarded)
            assert code == https_code
            if code == 200:
                assert "Secure" in cookie
            else:
                plain_code, plain_cookie = login(floor.url, f"http://{host}", headers=forwarded)
                assert plain_code == 200 and "Secure" not in plain_cookie
        finally:
            floor.stop()


def test_retiring_a_floor_process(tmp_path: Path, broker: Mosquitto, floor_dsn: str) -> None:
    floor = FloorProcess(broker.url, floor_dsn, "b", tmp_path).start()
    command = [sys.executable, "-m", "controller", "floor", "retire", "b", "--broker",
               broker.url, "--db", floor_dsn]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    try:
        running = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
        assert running.returncode == 2 and "is running: stop it first" in running.stderr
    finally:
        floor.stop()
    retired = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert retired.returncode == 0, retired.stderr
    assert "its session at" in retired.stdout


def test_a_stopped_floor_logs_its_stop_line(tmp_path: Path, broker: Mosquitto,
                                            floor_dsn: str) -> None:
    """Issue 48: every long-running process logs one `stopped` line when it stops (README, "The
    service"), as `run` does; `floor serve` logged none. Its count is this process's."""
    floor = FloorProcess(broker.url, floor_dsn, "a", tmp_path).start().subscribed()
    try:
        sender = Sender(broker.port)
        sender.send("tablectl/tables/bj-01/journal/device", message("bj-01", 1))
        sender.close()
        wait_until(lambda: one(floor_dsn, "SELECT count(*) FROM messages") == 1, "stored")
    finally:
        floor.stop()
    assert floor.process is not None and floor.process.returncode == 0
    last = json.loads(floor.log.read_text().splitlines()[-1])
    assert (last["event"], last["floor"], last["messages"]) == ("stopped", "a", 1)
