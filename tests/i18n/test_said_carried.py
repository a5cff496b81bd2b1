"""No sentence for people reaches the dealer display without its id (issue 49): the screens
translate each sentence from the message id and parts it carries (a `Said`), so a sentence that
lost them on its way (glued, formatted again, read back as bare English) would stay English
without a word. Walked over the view after every event of autopilot rounds with every side bet,
holds and lost devices."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from babel.messages.pofile import read_po

from controller.daemon.service import TableService
from controller.display.view import view
from controller.game.events import DeviceAlarm, DeviceLost, Event
from controller.game.said import Said, said
from controller.game.table_config import config_change
from controller.i18n import catalogs
from controller.i18n.catalogs import TEMPLATE, parts
from controller.i18n.localize import localized
from simulators.autopilot import Autopilot
from tests.conftest import REGISTRY

SIDE_BETS = {"blackjack": {"lucky_stiff": "1", "lucky7": "1", "dead_mans_hand": "1",
                           "blackjack_tie": "1"}, "baccarat": {"lucky8": "1"}}
KEY = re.compile(r"[a-z0-9_.]*")  # an id or a state's key ("betting", "lucky8_banker")


@cache
def said_templates() -> frozenset[str]:
    """The templates of the core's sentences (`said()` in Python), from the catalogs' template:
    a page's own words ("{start} to {end}") are no sentence the core says."""
    with TEMPLATE.open("rb") as file:
        template = read_po(file)
    return frozenset(m.id for m in template if isinstance(m.id, str) and parts(m.id)
                     and any(where.endswith(".py") for where, _ in m.locations))


@cache
def sentences() -> list[re.Pattern[str]]:
    """Each sentence the core says (`said` in Python), as a pattern of its English: its
    literals, and anything for its parts."""
    return [re.compile("".join(re.escape(piece) if i % 2 == 0 else ".+"
                               for i, piece in enumerate(re.split(r"\{(\w+)\}", template))),
                       re.DOTALL)
            for template in said_templates() if re.search(r"[^\W\d_]", re.sub(r"\{\w+\}", "",
                                                                               template))]


def bare(data: Any, at: str = "", passed_over: frozenset[str] = frozenset()
         ) -> Iterator[tuple[str, str]]:
    """Every English sentence of ours in `data` that is no `Said`, with where it is, in a
    sentence's parts too; the values of keys `passed_over` are not looked at."""
    if isinstance(data, Said):
        for name, part in data.parts.items():
            yield from bare(part, f"{at}{{{name}}}", passed_over)
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in passed_over:
                yield from bare(value, f"{at}.{key}", passed_over)
    elif isinstance(data, (list, tuple)):
        for index, value in enumerate(data):
            yield from bare(value, f"{at}[{index}]", passed_over)
    elif isinstance(data, str) and not KEY.fullmatch(data) and \
            any(pattern.fullmatch(data) for pattern in sentences()):
        yield at, data


def carried(data: Any) -> int:
    if isinstance(data, Said):
        return 1
    if isinstance(data, dict):
        return sum(carried(value) for value in data.values())
    if isinstance(data, (list, tuple)):
        return sum(carried(value) for value in data)
    return 0


def test_a_sentence_without_its_id_is_found() -> None:
    """The walk is no formality: a sentence that lost its id, at any depth, is named."""
    lost = str(said("lost contact with the {device}", device="shoe"))
    assert list(bare({"seats": [{"lines": [{"text": lost}]}], "phase": "betting",
                      "fine": said("shoe lost")})) == [(".seats[0].lines[0].text", lost)]


@pytest.mark.parametrize("game", sorted(SIDE_BETS))
def test_every_sentence_of_the_view_carries_its_id(game: str) -> None:
    service = TableService(keep_rounds=5)
    service.submit(config_change(game, {}, SIDE_BETS[game], REGISTRY))
    spanish = catalogs.load("es")
    seen = [0]

    def submit(event: Event) -> Any:
        effects = service.submit(event)
        shown = view(service.table, "test table", notices=[said("shoe lost")])
        assert list(bare(shown)) == [], type(event).__name__
        translated = localized(shown, spanish)
        assert carried(translated) == 0
        seen[0] += carried(shown)
        return effects

    autopilot = Autopilot(submit, service.table, random.Random(7))
    for number in range(6):
        if number == 3:
            submit(DeviceLost(seq=0, device="pads", reason=said("unplugged")))
            submit(DeviceAlarm(seq=0, device="shoe", code="lid_open",
                               text=said("shoe lid or door open (tamper)")))
        autopilot.play_round()
    assert seen[0] > 500  # the walk met sentences, and each had its id

