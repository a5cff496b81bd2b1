"""The dealer view keeps its declared shape (issue 49, `protocol/view.py`): every view a
simulated round or a golden script pushes, after every event, validates against the published
model, as the stream sends it (in a language, with its version) and as the API gives it; a key
the model does not declare fails."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from controller.commands.script import ScriptedDealer, parse_script
from controller.daemon.config_file import Languages
from controller.daemon.service import TableService
from controller.display.server import Hub
from controller.display.view import view
from controller.game.events import Event
from controller.game.table_config import config_change
from protocol.view import Ping, Snapshot, View
from simulators.autopilot import Autopilot
from tests.conftest import REGISTRY

GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("*.json"))
SIDE_BETS = {"blackjack": {"lucky_stiff": "1", "lucky7": "1", "dead_mans_hand": "1",
                           "blackjack_tie": "1"}, "baccarat": {"lucky8": "1"}}
TRAY = {"connected": True, "utc": "2026-12-03T06:00:00Z", "chips": {"2500": 40, "500": 100}}
CARD = {"number": "P-1001", "reader": "reader-1", "text": "card P-1001 read: tap the seat"}


def checked(service: TableService, extras: bool) -> dict[str, Any]:
    """The view now, validated; with `extras`, the loop's parts beside it filled."""
    shown = view(service.table, "bj-07", pending_card=CARD if extras else None,
                 notices=["a garbled card"] if extras else None, tray=TRAY if extras else None,
                 supervisor_over=300000 if extras else None)
    View.model_validate(shown)
    return shown


@pytest.mark.parametrize("game", ["blackjack", "baccarat"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_view_of_simulated_rounds_is_declared(game: str, seed: int) -> None:
    """Autopilot rounds with every side bet; the view after each event, with and without the
    loop's card, notices, tray and books limit."""
    service = TableService(keep_rounds=5)
    checked(service, extras=False)  # before any configuration
    service.submit(config_change(game, {}, SIDE_BETS[game], REGISTRY))
    seen: set[str] = set()

    def submit(event: Event) -> Any:
        effects = service.submit(event)
        seen.update(checked(service, extras=len(seen) % 2 == 0))
        return effects

    autopilot = Autopilot(submit, service.table, random.Random(seed))
    for _ in range(4):
        autopilot.play_round()
    assert {"dealer" if game == "blackjack" else "baccarat", "payout", "expected"} <= seen


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_view_of_a_golden_round_is_declared(path: Path) -> None:
    raw = json.loads(path.read_text())["script"]
    service = TableService()
    service.submit(config_change(raw["game"], raw.get("rules", {}), raw.get("pay_tables", {}),
                                 REGISTRY))

    def submit(event: Event) -> Any:
        effects = service.submit(event)
        checked(service, extras=False)
        return effects

    ScriptedDealer(parse_script(raw, REGISTRY), submit, service.table, []).run()
    assert service.table.recent, "the round was played"


def test_the_stream_and_the_api_send_the_declared_snapshot() -> None:
    """As the hub sends it: the starting view, then a table's, in a language and in English."""
    hub = Hub(Languages())
    Snapshot.model_validate({"version": hub.version, "view": hub.view})
    Snapshot.model_validate({"version": 0, "view": hub.shown()[1]})
    service = TableService()
    service.submit(config_change("baccarat", {}, SIDE_BETS["baccarat"], REGISTRY))
    hub.publish(view(service.table, "bac-01"))
    version, shown = hub.shown()
    assert shown["language"] == "en"
    Snapshot.model_validate({"version": version, "view": shown})
    Snapshot.model_validate({"version": version, "view": hub.view})
    Ping.model_validate({"version": version})


@pytest.mark.parametrize("where", ["top", "seat", "books"])
def test_a_key_the_model_does_not_declare_fails(where: str) -> None:
    """A new key of the view fails here until protocol/view.py declares it."""
    service = TableService()
    service.submit(config_change("blackjack", {}, {}, REGISTRY))
    shown = view(service.table, "bj-07")
    {"top": shown, "seat": shown["seats"][0], "books": shown["books"]}[where]["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        View.model_validate(shown)
