"""Wager checks at bet lock. They produce alerts, never exceptions (a live table keeps running).

- a wager on a spot the table does not offer is refused (docs/RULINGS.md, Blackjack Tie:
  "refused");
- blackjack: a side wager without a main wager is refused: the seat gets no cards
  (docs/RULINGS.md, Blackjack: deal order; docs/rules/lucky-7-blackjack.txt: "you cannot play a
  Lucky 7 bet only");
- below the minimum or above the maximum of a spot (table option `limits`);
- Blackjack Tie bonuses above the main wager (docs/RULINGS.md, Blackjack Tie);
- a Lucky 7 wager that is not the unit (docs/RULINGS.md, Lucky 7);
- where the layout limits a player to four wagering options (docs/RULINGS.md, Lucky 8;
  docs/rules/blackjack-tie.txt: "limited to wagering on only four separate games"): more than
  four, or four with none limited to the limited-wager maximum ($5).
Blocking alerts must be cleared by the dealer before the deal; refused wagers go back. Their
texts name the wagers and write the money as the table's `Currency` does; `spot` keeps the key.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.game.alerts import Alert
from controller.game.names import wager_words
from controller.game.said import said
from controller.game.table_config import TableConfig


def _said(spot: str, config: TableConfig) -> str:
    """The wager as the dealer says it, for an alert's text (its `spot` keeps the key)."""
    return wager_words(spot, config.pay_tables)


def check_wagers(config: TableConfig, wagers: Mapping[int, Mapping[str, int]]
                 ) -> tuple[dict[int, dict[str, int]], list[Alert]]:
    """Split wagers into those accepted for play and alerts (refusals included)."""
    offered, money = set(config.offered_spots()), config.money.text
    accepted: dict[int, dict[str, int]] = {}
    alerts: list[Alert] = []
    for seat, spots in sorted(wagers.items()):
        placed = {spot: amount for spot, amount in spots.items() if amount > 0}
        kept: dict[str, int] = {}
        for spot, amount in placed.items():
            if spot not in offered:
                alerts.append(Alert("spot_not_offered",
                                    said("seat {seat}: {wager} is not offered at this table; "
                                         "return the {amount} wager", seat=seat,
                                         wager=_said(spot, config), amount=money(amount)),
                                    seat, spot, refused=True))
            elif config.game == "blackjack" and spot != "main" and "main" not in placed:
                alerts.append(Alert("side_without_main",
                                    said("seat {seat}: {wager} needs a main wager; return the "
                                         "{amount} wager", seat=seat,
                                         wager=_said(spot, config), amount=money(amount)),
                                    seat, spot, refused=True))
            else:
                kept[spot] = amount
        if kept:
            accepted[seat] = kept
            alerts += _limit_alerts(config, seat, kept)
    return accepted, alerts


def _limit_alerts(config: TableConfig, seat: int, spots: dict[str, int]) -> list[Alert]:
    alerts: list[Alert] = []
    money = config.money.text
    for spot, amount in spots.items():
        low, high = config.limits.get(spot.split(".", 1)[0], (0, None))
        if amount < low:
            alerts.append(Alert("below_minimum",
                                said("seat {seat}: {wager} {amount} is below the minimum "
                                     "{minimum}", seat=seat, wager=_said(spot, config),
                                     amount=money(amount), minimum=money(low)),
                                seat, spot, blocking=True))
        if high is not None and amount > high:
            alerts.append(Alert("above_maximum",
                                said("seat {seat}: {wager} {amount} is above the maximum "
                                     "{maximum}", seat=seat, wager=_said(spot, config),
                                     amount=money(amount), maximum=money(high)),
                                seat, spot, blocking=True))
    bonuses = sum(a for s, a in spots.items() if s.startswith("blackjack_tie."))
    if bonuses > spots.get("main", 0) and bonuses:
        alerts.append(Alert("tie_bonuses_above_main",
                            said("seat {seat}: {wager} bonuses {bonuses} exceed the main wager "
                                 "{main}", seat=seat, wager=_said("blackjack_tie", config),
                                 bonuses=money(bonuses), main=money(spots.get("main", 0))),
                            seat, "blackjack_tie", blocking=True))
    if "lucky7" in spots and spots["lucky7"] != config.lucky7_unit:
        alerts.append(Alert("lucky7_not_unit",
                            said("seat {seat}: {wager} takes exactly {unit}, not {amount}",
                                 seat=seat, wager=_said("lucky7", config),
                                 unit=money(config.lucky7_unit), amount=money(spots["lucky7"])),
                            seat, "lucky7", blocking=True))
    if config.four_wager_limit:
        count = len(spots)
        limited = any(amount <= config.limited_wager_max for amount in spots.values())
        if count > 4:
            alerts.append(Alert("more_than_four_wagers",
                                said("seat {seat}: {count} wagering options; the layout allows "
                                     "four", seat=seat, count=count),
                                seat, blocking=True))
        elif count == 4 and not limited:
            alerts.append(Alert("no_limited_wager",
                                said("seat {seat}: four wagering options and none limited to "
                                     "{limit}", seat=seat, limit=money(config.limited_wager_max)),
                                seat, blocking=True))
    return alerts
