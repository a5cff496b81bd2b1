"""The commit habit (CONTRIBUTING.md, issue 36): `.githooks/commit-msg` refuses a subject over 72
characters or a body with no blank line before it, and takes what the habit asks for."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parent.parent / ".githooks" / "commit-msg"


def hook(tmp_path: Path, message: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run(["sh", str(HOOK), str(path)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, timeout=30)


@pytest.mark.parametrize("message", [
    "Floor: ratings' credits indexed\n\nWhy, at length, in the body.\n",
    "A subject alone\n",
    "x" * 72 + "\n",
    "Réglé: " + "é" * 65 + "\n",  # 72 characters, more bytes
    "A subject\n\nbody\n# Please enter the commit message (a comment git drops)\n"])
def test_a_message_as_the_habit_asks_is_taken(tmp_path: Path, message: str) -> None:
    result = hook(tmp_path, message)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize(("message", "said"), [
    ("x" * 73 + "\n", "the subject is 73 characters; at most 72"),
    ("A subject\nthe body at once\n", "the line after the subject must be blank"),
    ("\n\nbody\n", "the subject is empty"),
    ("# only a comment\n", "the subject is empty")])
def test_a_message_against_the_habit_is_refused(tmp_path: Path, message: str,
                                                said: str) -> None:
    result = hook(tmp_path, message)
    assert result.returncode == 1
    assert said in result.stderr and result.stderr.count("\n") == 1
