"""One edge job in a child process of its own (`python -m floor.edge_job`): a table's `config`
message on stdin, rebuilt into its configuration; on stdout, as JSON, its key (`{"key": K}`)
or, given `--key K`, the edges of that configuration (`{"edges": {...}}`), or why not
(`{"failed": why}`).

The message is a stranger's, and the exact analysis of a real table takes seconds to minutes of
CPU: so the job runs where it can be bounded. The child limits its own CPU time and address
space (`setrlimit`) before it reads a byte, at a lower priority than the pit and the ingest, and
the floor kills it (its whole process group) past a wall-clock limit or when it stops.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import math
import os
import resource
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.game.said import said
from floor.defaults import EDGE_CPU_S, EDGE_MEMORY_MB, EDGE_WALL_S

NICE = 10  # the pit and the ingest first
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
EXIT_MEMORY = 3  # the child's status when it ran out of its address space
# numpy's BLAS starts a thread, and reserves memory, per core: one is all the analysis uses
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Limits:
    """What one job may take: wall-clock seconds (the floor kills it), CPU seconds and
    address space in MB (the child's own limits)."""

    wall_s: float = EDGE_WALL_S
    cpu_s: int = EDGE_CPU_S
    memory_mb: int = EDGE_MEMORY_MB

    def __str__(self) -> str:
        return f"wall {self.wall_s:g} s, CPU {self.cpu_s} s, memory {self.memory_mb} MB"


@dataclass(frozen=True)
class Outcome:
    """A job's answer (the child's JSON, or `{"failed": why}`), and whether it broke a limit:
    only such a failure may succeed under other limits."""

    answer: dict[str, Any]
    limited: bool = False


async def run(body: str, key: str | None, limits: Limits,
              started: Callable[[int], None] = lambda pid: None) -> Outcome:
    """One job in a new child, `started(pid)` told once it runs; the child and anything it
    started are killed when it breaks the wall-clock limit or the caller is cancelled."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "floor.edge_job", "--cpu", str(limits.cpu_s),
        "--memory", str(limits.memory_mb), "--parent", str(os.getpid()),
        *([f"--key={key}"] if key is not None else []),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True,
        env={**os.environ, **ONE_THREAD})
    started(child.pid)
    try:
        out, err = await asyncio.wait_for(child.communicate(body.encode()), limits.wall_s)
    except TimeoutError:
        return Outcome({"failed": said("took more than {seconds} s",
                                       seconds=format(limits.wall_s, "g"))}, limited=True)
    finally:
        if child.returncode is None:
            kill(child.pid)
            await child.wait()
    if child.returncode == -signal.SIGXCPU:
        return Outcome({"failed": said("used more than {seconds} s of CPU",
                                       seconds=limits.cpu_s)}, limited=True)
    if child.returncode == -signal.SIGKILL:
        return Outcome({"failed": said("killed (past {seconds} s of CPU, or by the system)",
                                       seconds=limits.cpu_s)}, limited=True)
    if child.returncode == EXIT_MEMORY:
        return Outcome({"failed": said("needed more than {memory} MB",
                                       memory=limits.memory_mb)}, limited=True)
    if child.returncode != 0:
        last = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
        return Outcome({"failed": said("the job ended with status {status}: {error}",
                                       status=child.returncode, error=last[0][:300])},
                       limited=True)
    return Outcome(_understood(out))


def _understood(out: bytes) -> dict[str, Any]:
    """The child's answer, if it is one: a key, edges as finite numbers, or why not."""
    try:
        answer = json.loads(out)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and len(answer) == 1:
        value = answer.get("key", answer.get("failed"))
        if isinstance(value, str):
            return answer
        edges = answer.get("edges")
        if isinstance(edges, dict) and all(
                isinstance(e, int | float) and math.isfinite(e) for e in edges.values()):
            return answer
    return {"failed": said("the job's answer is not understood: {answer}",
                           answer=repr(out[:100]))}


def kill(pid: int) -> None:
    """The child's whole process group (it leads one of its own)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def _limit(cpu_s: int, memory_mb: int, parent: int) -> None:
    """The child's own bounds: SIGXCPU past `cpu_s` (SIGKILL a second later), MemoryError
    past `memory_mb` of address space; and SIGKILL when the floor process `parent` dies,
    however it dies (SIGKILL leaves it no time to kill its children)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the child asked
        os._exit(1)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    memory = memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    os.nice(NICE)


def _answer(body: Any, key: str | None) -> dict[str, Any]:
    from controller.analysis.edges import config_of_message, of_config_message
    try:
        if key is None:
            return {"key": config_of_message(body)[0]}
        return {"edges": of_config_message(body, key)}
    except MemoryError:
        raise
    except Exception as exc:  # a stranger's configuration that breaks the analysis in any
        return {"failed": f"{type(exc).__name__}: {exc}"[:500]}  # way is failed, with why


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cpu", type=int, required=True, metavar="SECONDS")
    parser.add_argument("--memory", type=int, required=True, metavar="MB")
    parser.add_argument("--key", help="work out the edges of this configuration key")
    parser.add_argument("--parent", type=int, required=True, metavar="PID")
    args = parser.parse_args()
    _limit(args.cpu, args.memory, args.parent)
    try:
        try:
            body = json.loads(sys.stdin.buffer.read())
        except (ValueError, RecursionError):  # stored as JSON: never, but a stranger's
            body = None
        answer = _answer(body, args.key)
    except MemoryError:
        return EXIT_MEMORY
    print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
