"""The commit habit (CONTRIBUTING.md, issues 36 and 48): `.githooks/commit-msg` refuses a subject
over 72 characters, one that does not start with the room it changes in lower case, or a body
with no blank line before it, and takes what the habit asks for."""

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
    "floor: ratings' credits indexed\n\nWhy, at length, in the body.\n",
    "docs: a subject alone\n",
    "display, i18n: two rooms\n",
    "controller.game: a module's room\n",
    "Merge the newcomer's screens (issue 48)\n",
    "Revert \"floor: ratings' credits indexed\"\n",
    "tests: " + "x" * 65 + "\n",
    "docs: " + "é" * 66 + "\n",  # 72 characters, more bytes
    "ci: a subject\n\nbody\n# Please enter the commit message (a comment git drops)\n"])
def test_a_message_as_the_habit_asks_is_taken(tmp_path: Path, message: str) -> None:
    result = hook(tmp_path, message)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize(("message", "said"), [
    ("docs: " + "x" * 67 + "\n", "the subject is 73 characters; at most 72"),
    ("docs: a subject\nthe body at once\n", "the line after the subject must be blank"),
    ("Floor: ratings' credits indexed\n", "starts with the room it changes"),
    ("ratings' credits indexed\n", "starts with the room it changes"),
    ("floor:no space\n", "starts with the room it changes"),
    ("\n\nbody\n", "the subject is empty"),
    ("# only a comment\n", "the subject is empty")])
def test_a_message_against_the_habit_is_refused(tmp_path: Path, message: str,
                                                said: str) -> None:
    result = hook(tmp_path, message)
    assert result.returncode == 1
    assert said in result.stderr and result.stderr.count("\n") == 1
