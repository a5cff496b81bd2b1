"""Real servers for the floor's tests: Mosquitto and PostgreSQL from Debian's packages, each in a
temporary directory on a free port, started, restarted, killed and stopped as a test needs.

PostgreSQL refuses to run as root: as root, its files belong to the packaged `postgres` user and
its commands run as that user."""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

WAIT_S = 30.0
# Debian's PostgreSQL (15 on bookworm): the newest installed.
PG_BIN = max(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name),
             default=Path("/usr/lib/postgresql/15/bin"))


# Ports the servers of the tests are started on: below the kernel's ephemeral range (32768 and up,
# where a `port=0` listener or an outgoing connection lands), one block per pytest-xdist worker,
# so that two workers never pick the same port between probing it and starting a server on it.
PORTS_FROM, PORTS_PER_WORKER = 10000, 1000
_next_port = itertools.count()


def free_port() -> int:
    """A port nobody listens on, from this worker's own block."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    first = PORTS_FROM + int(worker.removeprefix("gw")) * PORTS_PER_WORKER
    for _ in range(PORTS_PER_WORKER):
        port = first + next(_next_port) % PORTS_PER_WORKER
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            return port
    raise RuntimeError(f"no free port in {first}-{first + PORTS_PER_WORKER - 1}")


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None,
                  what: str = "server") -> None:
    """Until something accepts on `port` (bounded; fails at once if the process died)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.02)  # polling a condition, bounded: not a synchronisation sleep
    raise TimeoutError(f"{what} did not listen on port {port} in {WAIT_S} s")


class Mosquitto:
    """A broker with persistence (a restart keeps the floor's queued messages), anonymous
    clients allowed on loopback: the security set-up is tested on its own."""

    def __init__(self, folder: Path, extra: str = "", config: str | None = None,
                 persist: bool = True) -> None:
        """`config`: a whole configuration instead, its listener on `{port}`; `persist`: keep
        what it holds across a restart (a SIGKILL loses what it had not saved)."""
        self.folder = folder
        self.port = free_port()
        self.conf = folder / "mosquitto.conf"
        run_as = f"user {pwd.getpwuid(os.getuid()).pw_name}\nlog_dest file {folder}/log\n"
        self.conf.write_text(run_as + (config.replace("{port}", str(self.port)) if config else (
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence {'true' if persist else 'false'}\n"
            f"persistence_location {folder}/\nmax_queued_messages 10000000\n"
            f"max_inflight_messages 1000\n{extra}")))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.process = subprocess.Popen(["mosquitto", "-c", str(self.conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.process, "mosquitto")
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """SIGTERM: mosquitto saves its persistence file and exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(WAIT_S)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []


class Postgres:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="tablectl-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        if os.getuid() == 0:
            postgres = pwd.getpwnam("postgres")
            os.chown(self.folder, postgres.pw_uid, postgres.pw_gid)
        self.user = "postgres" if os.getuid() == 0 else pwd.getpwuid(os.getuid()).pw_name

    def _run(self, *command: str) -> None:
        subprocess.run([*_as_postgres(), *command], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd=self.folder)

    def init(self) -> Postgres:
        self._run(str(PG_BIN / "initdb"), "-D", str(self.data), "--auth=trust", "-U", self.user,
                  "--no-sync", "-E", "UTF8", "--locale=C")
        return self.start()

    def start(self) -> Postgres:
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c full_page_writes=off")
        self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"),
                  "-w", "-t", str(int(WAIT_S)), "-o", options, "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        """fast: a clean shutdown; immediate: as if the server crashed."""
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, template: str = "template1") -> str:
        """A new database, a copy of `template` (which nobody may be connected to)."""
        import psycopg
        with psycopg.connect(self.dsn(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.dsn(name)

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
