"""The table: every event folded into the state of one table, round after round.

It holds the configuration in force, the shoe (cards seen, cut card, burn), the current round and
the recent ones, and applies the table-level procedures: new shoe (with the baccarat burn), cut
card, shoe empty, misreads, impossible duplicates, lost devices, a restart with an unconfirmed
payout, and the supervisor's corrections. Pure: the same events always give the same table, so
crash recovery, game recall and replay are all one fold.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from controller.game.alerts import Alert
from controller.game.books import BooksError, Transaction, check_transaction
from controller.game.cards import Card, parse_card
from controller.game.day_ledger import DayLedger
from controller.game.describe import describe, describe_effect, split_so_far
from controller.game.events import (
    BetsLocked,
    BoughtIn,
    CardAssigned,
    CardDrawn,
    CardMisread,
    CardVoided,
    Checkpoint,
    ChipsLeft,
    ChipsTransferred,
    ClockStepped,
    ConfigChanged,
    ControllerStarted,
    CutCardReached,
    DayClosed,
    DaySigned,
    DealerSignedIn,
    DealerSignedOut,
    DeviceAlarm,
    DeviceFound,
    DeviceLost,
    DiskLow,
    DiskOk,
    Event,
    InputFailed,
    IntegrityBroken,
    IntegrityCleared,
    LockoutLifted,
    NewShoe,
    PayoutConfirmed,
    PinsRefused,
    PlayerLeft,
    PlayerSeated,
    RatingAssessed,
    ShoeEmpty,
    ShuffleFlagged,
    SupervisorRefused,
    TrayCounted,
    WagerPlaced,
    canonical,
    is_correction,
)
from controller.game.money import USD
from controller.game.names import (
    NO_TABLES,
    card_words,
    decision_words,
    event_words,
    readable,
    seat_wagers_in_words,
    where_words,
)
from controller.game.pin_state import PinState
from controller.game.ratings import Rating, Ratings, RoundCredits
from controller.game.round_machine import DealtCard, Effect, RoundMachine
from controller.game.round_state import BETTING, CLOSED, HOLD, LOCKED, VOIDED, Payout, Status
from controller.game.rules.baccarat_play import BaccaratPlay
from controller.game.said import Said, said
from controller.game.shuffle_watch import ShuffleWatch
from controller.game.table_config import TableConfig, config_from_event, edge_key
from controller.game.targets import Kind, Target

OPENS_A_ROUND: Final = (WagerPlaced, BetsLocked, CardDrawn, CardMisread)
CLOSING: Final = (DayClosed, Checkpoint, DaySigned)  # the end of a day, never the next one's start
SNAPSHOT_VERSION: Final = 1
MOST_FINDINGS: Final = 20  # the integrity findings latched at once: the first says why
REVIEW = said("the controller restarted before this payout was confirmed: check the cards and "
              "the chips on the table, then confirm the payout or void the round")


@dataclass
class RoundRecord:
    """One round: its machine, the events applied to it (for rebuilds) and its log (for recall)."""

    number: int
    machine: RoundMachine
    shoe: int = 0  # the shoe it was dealt from (for the baccarat bead road)
    dealer: str = ""  # the dealer signed in when it opened ("": none)
    config_key: str = ""  # its configuration's `edge_key`, for the ratings
    events: list[Event] = field(default_factory=list)
    log: list[tuple[int, str, str]] = field(default_factory=list)  # (seq, utc, text)
    voided_cards: set[int] = field(default_factory=set)  # seqs of played cards voided
    played_voids: set[int] = field(default_factory=set)  # CardVoided seqs that voided them
    # What the table (not the round's rules) decided for an event: hold with a reason, or set
    # the event's card aside with a reason (in words, and as the day's summary records it).
    # Kept so that a rebuild decides the same.
    table_actions: dict[int, tuple[str, str, str]] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        """computed / shown / confirmed / voided, or the round's state while it is open."""
        machine = self.machine
        if machine.settled or machine.state is CLOSED:
            return machine.payout or Payout.COMPUTED  # closed: confirmed
        return machine.state


@dataclass
class Shoe:
    number: int = 0
    counts: Counter[Card] = field(default_factory=Counter)
    cut_card: bool = False
    change_required: bool = False
    burn_left: int | None = None  # baccarat burn: -1 waits for the card that says how many
    # Each baccarat coup of this shoe, (player cards, banker cards): the scoreboard's roads.
    coups: list[tuple[str, str]] = field(default_factory=list)

    def to_state(self) -> dict[str, Any]:
        return {"number": self.number, "cut_card": self.cut_card,
                "change_required": self.change_required, "burn_left": self.burn_left,
                "counts": dict(sorted((str(card), n) for card, n in self.counts.items() if n)),
                "coups": [list(coup) for coup in self.coups]}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Shoe:
        return cls(state["number"],
                   Counter({parse_card(card): n for card, n in state["counts"].items()}),
                   state["cut_card"], state["change_required"], state["burn_left"],
                   [(player, banker) for player, banker in state["coups"]])


def coup_of(play: BaccaratPlay) -> tuple[str, str]:
    """A finished coup as the shoe keeps it for its roads: ('player cards', 'banker cards')."""
    return " ".join(map(str, play.player)), " ".join(map(str, play.banker))


@dataclass(frozen=True)
class Applied:
    """What one event did to the table (`Table.apply`): its effects (settlements and alerts, in
    order), the round it changed (None: the table's own event, or one no round took), the
    ratings it opened or closed, and what the round it finished credited to the open ratings."""

    effects: list[Effect]
    round: RoundRecord | None = None
    ratings: tuple[Rating, ...] = ()
    credited: RoundCredits | None = None
    booked: dict[str, Any] | None = None  # the day's books' record of a transaction


class FoldMismatch(ValueError):
    """A checkpoint or a day's summary says other than the fold of the records before it."""


Fold = Callable[["Table", Any], list[Effect]]
F = TypeVar("F", bound=Fold)
# Each kind of event the table folds itself, with its fold and whether a shoe frame it came in
# is noted as the last committed: filled by `folds` on the methods of `Table`.
FOLDS: dict[type[Event], tuple[Fold, bool]] = {}


def folds(*kinds: type[Event], frame: bool = True) -> Callable[[F], F]:
    """Register a `Table` method as the fold of `kinds` (where each kind is handled, in one
    place: `Table._apply` finds it by the event's type)."""
    def register(fold: F) -> F:
        for kind in kinds:
            FOLDS[kind] = (fold, frame)
        return fold
    return register


class Table:
    """Folds events into table state. `apply` returns the effects of one event."""

    def __init__(self, keep_rounds: int = 100, keep_ratings: int | None = 200) -> None:
        self.config: TableConfig | None = None
        self.config_event: ConfigChanged | None = None
        self.config_key = ""
        self.current: RoundRecord | None = None
        self.recent: deque[RoundRecord] = deque(maxlen=keep_rounds)
        self.rounds_played = 0
        self.shoe = Shoe()
        self.lost_devices: set[str] = set()
        self.table_log: deque[tuple[int, str, str]] = deque(maxlen=1000)
        self._changes = Applied([])  # what the event being applied changed (in `apply`)
        self.last_seq = 0
        self.last_shoe_frame = ""  # the shoe frame last committed, to drop a retransmission
        self.day = DayLedger()
        self.deal_refused: str | None = None  # why no new round may open (the disk's reserve)
        # What the table's integrity checks found, latched until a supervisor clears it: each
        # finding's check, where, sentence and evidence (`IntegrityBroken`).
        self.integrity: list[dict[str, str]] = []
        self.pins = PinState()
        self.ratings = Ratings(keep_ratings)
        self.dealer: str | None = None
        self.shuffle: ShuffleWatch | None = None  # the shuffle check, once a game is configured

    # ----- queries ---------------------------------------------------------------------------

    @property
    def round(self) -> RoundMachine | None:
        return self.current.machine if self.current else None

    def rounds(self) -> list[RoundRecord]:
        """The recent rounds, oldest first, the current one last."""
        return [*self.recent, *([self.current] if self.current else [])]

    def standing_alerts(self) -> list[Said]:
        """What stands between rounds and must be dealt with: lost devices, a shoe to change,
        a disk at its reserve. (Set-aside cards and holds belong to a round.)"""
        return ([said("lost contact with the {device}", device=device)
                 for device in sorted(self.lost_devices)]
                + ([said("change the shoe")] if self.shoe.change_required else [])
                + ([said("do not deal: {reason}", reason=self.deal_refused)]
                   if self.deal_refused else [])
                + [said("do not deal: {reason}", reason=f["text"]) for f in self.integrity])

    def deal_blocked(self) -> str | None:
        """Why no card may be dealt now: an integrity error latched, the journal's disk at its
        reserve, or a device lost (a round dealt without its shoe or its pads could not be
        followed)."""
        if self.integrity:
            return self.integrity[0]["text"]
        if self.deal_refused:
            return self.deal_refused
        if self.lost_devices:
            return said("lost contact with the {device}",
                        device=", ".join(sorted(self.lost_devices)))
        return None

    def lock_refused(self) -> str | None:
        """Why the dealer may not lock the bets now (None: the lock may go ahead). Checked
        where the dealer's request comes in, never in the fold, so that old journals refold
        as they were written."""
        machine = self.round
        if machine is not None and machine.state is not BETTING:
            return None  # past the lock: the round's own rules answer
        return self.deal_blocked()

    # ----- checkpoints -----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Everything a fold needs to carry on from here: taken between rounds only."""
        if self.current is not None:
            raise ValueError("a checkpoint is taken between rounds")
        config = self.config_event.to_record() if self.config_event else None
        return {"v": SNAPSHOT_VERSION, "config": config,
                "config_sha256": hashlib.sha256(canonical(config).encode()).hexdigest(),
                "rounds_played": self.rounds_played, "shoe": self.shoe.to_state(),
                "lost_devices": sorted(self.lost_devices), "last_shoe_frame":
                self.last_shoe_frame, "deal_refused": self.deal_refused,
                "alerts": self.standing_alerts(), "set_aside": [], "day": self.day.to_state(),
                "pins": self.pins.to_state(),
                # Only when there is something to keep: checkpoints written before players
                # were rated must still match their fold.
                **({"ratings": self.ratings.to_state()} if self.ratings.count else {}),
                **({"integrity": self.integrity} if self.integrity else {}),
                **({"dealer": self.dealer} if self.dealer else {}),
                **({"shuffle": self.shuffle.to_state()} if self.shuffle else {})}

    @classmethod
    def restore(cls, checkpoint: Checkpoint, keep_rounds: int = 100,
                keep_ratings: int | None = 200) -> Table:
        """The table as it stood at `checkpoint`, ready to fold the records after it."""
        state = checkpoint.state
        if state.get("v") != SNAPSHOT_VERSION:
            raise FoldMismatch(f"checkpoint {checkpoint.seq} is of version {state.get('v')}, "
                               f"this tablectl reads version {SNAPSHOT_VERSION}")
        table = cls(keep_rounds, keep_ratings)
        if state["config"] is not None:
            event = ConfigChanged(**{k: v for k, v in state["config"].items() if k != "kind"})
            table._configure(event)
        table.rounds_played = state["rounds_played"]
        table.shoe = Shoe.from_state(state["shoe"])
        table.lost_devices = set(state["lost_devices"])
        table.last_shoe_frame = state["last_shoe_frame"]
        table.deal_refused = state["deal_refused"]
        table.day = DayLedger.from_state(state["day"])
        table.pins = PinState.from_state(state["pins"])
        if "ratings" in state:
            table.ratings = Ratings.from_state(state["ratings"], keep_ratings)
        table.dealer = state.get("dealer")
        table.integrity = [dict(found) for found in state.get("integrity", [])]
        table.shuffle = ShuffleWatch.from_state(state["shuffle"]) if "shuffle" in state else \
            table._shuffle_started()
        table.last_seq = checkpoint.seq
        table.table_log.append((checkpoint.seq, checkpoint.utc, describe(checkpoint)))
        return table

    # ----- the fold --------------------------------------------------------------------------

    def apply(self, event: Event) -> Applied:
        """Fold one event in; what it changed (its effects, its round, its ratings)."""
        if event.seq <= self.last_seq:
            raise ValueError(f"event {event.seq} is not after event {self.last_seq}")
        self.last_seq = event.seq
        self._changes = Applied([])
        if not isinstance(event, CLOSING):
            self.day.open(event.seq, event.utc)
        before = self.current
        effects = self._apply(event)
        changes = self._changes = dataclasses.replace(self._changes, effects=effects)
        self._note_day(event, changes.round or before)
        record = changes.round
        went = self._went(record, event.seq) if record and isinstance(event, CardDrawn) \
            else None  # where a card went: found once, for the shuffle check and the log
        if isinstance(event, CardDrawn) and self.shuffle is not None:
            self.shuffle.card(event.card, record.number if record else 0, went)
        if record is not None:
            config = record.machine.config
            tables = config.pay_tables
            text = describe(event, tables, config.money)
            if went:
                text += f" {where_words(went)}"
            record.log.append((event.seq, event.utc, text))
            if effects:
                split = split_so_far(record.machine)
                record.log += [(event.seq, event.utc,
                                describe_effect(e, tables, split, config.money))
                               for e in effects]
            if record.machine.finished and record is self.current:
                self._archive()
        else:
            tables, money = (self.config.pay_tables, self.config.money) if self.config else \
                (NO_TABLES, USD)
            self.table_log.append((event.seq, event.utc, describe(event, tables, money)))
        return self._changes

    def _touch(self, record: RoundRecord) -> None:
        """The event being applied changes `record`."""
        self._changes = dataclasses.replace(self._changes, round=record)

    def _note_day(self, event: Event, record: RoundRecord | None) -> None:
        """Keep the day's ledger: holds as they start and end, corrections, refusals, faults:
        `record` is the round the event changed, else the one open before it."""
        number = record.number if record else None
        on_hold = record is not None and record.machine.state is HOLD
        if on_hold and self.day.open_hold is None and record is not None:
            self.day.hold_started(record.number, event.seq, record.machine.hold_audit or "")
        elif not on_hold and self.day.open_hold is not None:
            self.day.hold_ended(event.seq, event.kind, getattr(event, "by", ""))
        if is_correction(event):
            self.day.corrections.add({"seq": event.seq, "round": number, "kind": event.kind,
                                      "by": getattr(event, "by", "")})
        elif isinstance(event, SupervisorRefused):
            self.pins.note(event)
            self.day.refusals.add({"seq": event.seq, "supervisor": event.supervisor,
                                   "action": event.action, "reason": event.reason})
        elif isinstance(event, PinsRefused):
            self.pins.note(event)
            self.day.refusals.add({"seq": event.seq, "role": event.role, "who": event.who,
                                   "action": event.action, "reason": event.reason,
                                   "count": event.count}, event.count)
        elif isinstance(event, DeviceLost | DeviceAlarm) and (
                isinstance(event, DeviceLost) or event.hold):
            self.day.faults.add({"seq": event.seq, "device": event.device,
                                 "what": getattr(event, "reason", "") or
                                 getattr(event, "code", "")})
        elif isinstance(event, NewShoe):
            self.day.shoes += 1

    @staticmethod
    def _went(record: RoundRecord, seq: int) -> Target | None:
        """Where the card of event `seq` went (searched from the latest card)."""
        return next((c.to for c in reversed(record.machine.cards) if c.seq == seq), None)

    def _apply(self, event: Event) -> list[Effect]:
        """Fold one event by its kind's fold (`folds`); a kind without one is the open round's."""
        fold, frame = FOLDS.get(type(event), (Table._in_round, True))
        if frame and event.source.startswith("shoe#"):
            self.last_shoe_frame = event.source
        return fold(self, event)

    def _round(self, event: Event) -> RoundRecord | list[Effect]:
        """The round an event is for (a new one if its kind opens one and none is open), or
        the alert saying why there is none."""
        opens = isinstance(event, OPENS_A_ROUND)
        record = self._round_for(opens)
        if record is not None:
            return record
        if (why := self.integrity[0]["text"] if self.integrity else self.deal_refused) \
                and opens:
            return [Alert("do_not_deal", said("DO NOT DEAL: {reason}", reason=why),
                          blocking=True)]
        return [Alert("no_round", said("{event}: no round is open",
                                       event=event_words(event.kind)))]

    def _in_round(self, event: Event) -> list[Effect]:
        """An event of the round, fed to it as it is."""
        record = self._round(event)
        return record if isinstance(record, list) else self._feed(record, event)

    def books_refusal(self, event: Transaction) -> Alert | None:
        """Why the table cannot take a transaction, in words and money (None: it can): its
        edge asks before journaling one."""
        checked = self._checked(event)
        return checked if isinstance(checked, Alert) else None

    def _checked(self, event: Transaction) -> dict[int, int] | Alert:
        """A transaction's chips (`check_transaction`), or the alert that refuses it."""
        what = (said("tray {count}", count=event.count) if isinstance(event, TrayCounted)
                else event.transfer if isinstance(event, ChipsTransferred)
                else event_words(event.kind))
        if self.config is None:
            return Alert("no_configuration", said("{transaction}: no configuration is in force",
                                                  transaction=what))
        try:
            return check_transaction(event, self.config)
        except BooksError as exc:
            return Alert("no_such_seat" if exc.field == "seat" else "bad_books",
                         said("{transaction}: {reason}", transaction=what, reason=exc.reason))

    def _configure(self, event: ConfigChanged) -> None:
        self.config_event, self.config = event, config_from_event(event)
        self.config_key = edge_key(self.config)
        if self.shuffle is None or self.shuffle.check.decks != self.config.rules.decks:
            self.shuffle = self._shuffle_started()

    def _shuffle_started(self) -> ShuffleWatch | None:
        """The shuffle check begun at this shoe (unchecked if cards of it came out unseen)."""
        if self.config is None:
            return None
        return ShuffleWatch.started(self.config.rules.decks, self.shoe.number, self.shoe.counts)

    def _rated(self, ratings: list[Rating]) -> list[Rating]:
        """The event being applied opened or closed `ratings` (returned)."""
        self._changes = dataclasses.replace(self._changes,
                                            ratings=(*self._changes.ratings, *ratings))
        return ratings

    def _no_such_seat(self, seat: int, wager: bool) -> Alert | None:
        """The refusal of a seat this table does not have (a pad's report of a seat 10, a
        script's seat 0), saying what did not happen (a wager not taken, else nobody seated);
        None for one of its seats."""
        seats = self.config.max_seats if self.config else 0
        if 1 <= seat <= seats:
            return None
        return Alert("no_such_seat", said("seat {seat}: this table has seats 1 to {seats}; the "
                                          "wager is not taken", seat=seat, seats=seats)
                     if wager else said("seat {seat}: this table has seats 1 to {seats}; nobody "
                                        "was seated", seat=seat, seats=seats))

    def _feed(self, record: RoundRecord, event: Event) -> list[Effect]:
        """Apply one event to a round, the table's own decision first if it made one."""
        self._touch(record)
        if not record.events or record.events[-1].seq < event.seq:  # not a refold of the round
            record.events.append(event)
        action = record.table_actions.get(event.seq)
        if action is None:
            return record.machine.handle(event)
        what, reason, audit = action
        if what in ("hold", "review"):
            return record.machine.hold(reason, review=what == "review", audit=audit)
        card = event.card if isinstance(event, CardDrawn) else None
        return record.machine.set_aside(card, event.seq, reason, audit)

    def _decide(self, record: RoundRecord, event: Event, what: str, reason: str,
                audit: str | None = None) -> list[Effect]:
        """The table holds the round (or sets the card aside) for `reason`, said to people;
        `audit`: the reason as the day's summary records it, where the words differ."""
        record.table_actions[event.seq] = (what, reason, reason if audit is None else audit)
        return self._feed(record, event)

    def _round_for(self, opens: bool) -> RoundRecord | None:
        if self.current is not None:
            return self.current
        if not opens or self.config is None:
            return None
        if self.deal_refused or self.integrity:
            return None
        self.rounds_played += 1
        self.current = RoundRecord(self.rounds_played, RoundMachine(self.config),
                                   self.shoe.number, self.dealer or "", self.config_key)
        return self.current

    def _archive(self) -> None:
        record = self.current
        assert record is not None
        self.day.round_finished(record.status, record.machine.settlements)
        credited = self.ratings.round_finished(record.number, record.machine.accepted,
                                               record.machine.settlements, record.config_key,
                                               record.dealer, record.status is VOIDED,
                                               record.log[-1][1] if record.log else "")
        self._changes = dataclasses.replace(self._changes, credited=credited)
        play = record.machine.play
        if isinstance(play, BaccaratPlay) and play.stage == "done" and \
                record.status is not VOIDED:
            self.shoe.coups.append(coup_of(play))
        self.recent.append(record)
        self.current = None
        if self.shuffle is not None:
            self.shuffle.round_over()
        if self.shoe.cut_card:
            self.shoe.change_required = True

    def _void_played_card(self, record: RoundRecord, event: CardVoided) -> list[Effect]:
        """Void the round's last played card: rebuild the round from its events without it,
        then hold it until a supervisor resumes. Until the payout is confirmed a settlement
        the card brought about is taken back with it."""
        self._touch(record)
        played = [c for c in record.machine.cards if c.card is not None
                  and c.to.kind not in (Kind.VOIDED, Kind.BURN)]
        if not played:
            return [Alert("no_card_to_void",
                          said("cannot void the last card: no card was played"))]
        last = played[-1]
        record.events.append(event)
        record.voided_cards.add(last.seq)
        record.played_voids.add(event.seq)
        old = record.machine
        record.machine = RoundMachine(old.config)
        for past in record.events:
            # A confirmation in an open round's events was refused (one taken closes the
            # round): without the card the round may be settled, and it must stay refused.
            if past.seq not in record.voided_cards and past.seq not in record.played_voids \
                    and not isinstance(past, PayoutConfirmed):
                self._feed(record, past)
        record.machine.cards.append(DealtCard(last.card, Target(Kind.VOIDED), last.seq))
        why = f"voided by {event.by}: resume when the table matches"
        record.table_actions[event.seq] = ("hold", said(
            "card {card} voided by {by}: resume when the table matches",
            card=card_words(str(last.card)), by=event.by), f"card {last.card} {why}")
        return [*self._feed(record, event)]

    # ----- the folds, one per kind of event ----------------------------------------------------
    # Each kind of event the table itself folds registers its fold here (`folds`); a kind with
    # none is the open round's (`_in_round`). `frame=False`: a shoe frame it came in is not
    # noted as the last committed (the table's own kinds and its shoe procedures never were).

    @folds(ConfigChanged, frame=False)
    def _configured(self, event: ConfigChanged) -> list[Effect]:
        self._configure(event)
        return []

    @folds(RatingAssessed, frame=False)
    def _assessed(self, event: RatingAssessed) -> list[Effect]:
        """The audit trail's and the floor's: no state."""
        return []

    @folds(DealerSignedIn, frame=False)
    def _dealer_in(self, event: DealerSignedIn) -> list[Effect]:
        self.dealer = event.dealer
        return []

    @folds(DealerSignedOut, frame=False)
    def _dealer_out(self, event: DealerSignedOut) -> list[Effect]:
        if self.dealer != event.dealer:
            return [Alert("not_signed_in", said("dealer {dealer} is not signed in here",
                                                dealer=event.dealer))]
        self.dealer = None
        return []

    @folds(PlayerSeated, frame=False)
    def _seated(self, event: PlayerSeated) -> list[Effect]:
        """A rating opens."""
        if refused := self._no_such_seat(event.seat, wager=False):
            return [refused]
        self._rated(self.ratings.seat(event))
        return []

    @folds(PlayerLeft, frame=False)
    def _left(self, event: PlayerLeft) -> list[Effect]:
        """A rating closes."""
        if not self._rated(self.ratings.leave(event)):
            return [Alert("no_rating", said("seat {seat}: no player is rated there",
                                            seat=event.seat))]
        return []

    def _booked(self, event: Transaction, book: Callable[[dict[int, int]], dict[str, Any]]
                ) -> list[Effect]:
        """The day's books (issue 38). The table's edge checked each transaction before it
        was journaled; one the configuration in force cannot take (chips it does not have, a
        seat it does not have) is said and kept out of the books, never guessed. What was
        booked (`book` of its chips) is the floor's (`Applied.booked`)."""
        chips = self._checked(event)
        if isinstance(chips, Alert):
            return [chips]
        self._changes = dataclasses.replace(self._changes, booked=book(chips))
        return []

    @folds(TrayCounted, frame=False)
    def _tray(self, event: TrayCounted) -> list[Effect]:
        return self._booked(event, lambda chips: self.day.books.counted(
            event.count, event.seq, chips, event.dealer, event.supervisor))

    @folds(ChipsTransferred, frame=False)
    def _transfer(self, event: ChipsTransferred) -> list[Effect]:
        tray = {int(d): n for d, n in event.tray.items() if n} if event.tray else None
        return self._booked(event, lambda chips: self.day.books.transferred(
            event.transfer, event.seq, chips, event.runner, event.supervisor, tray))

    @folds(BoughtIn, frame=False)
    def _bought_in(self, event: BoughtIn) -> list[Effect]:
        """Cash in at a seat; the rating's chips too (its whole state goes to the floor when
        it closes)."""
        def book(chips: dict[int, int]) -> dict[str, Any]:
            rating = self.ratings.open.get(event.seat)
            number, player = (rating.number, rating.player) if rating else (None, None)
            booked = self.day.books.bought_in(event.seq, event.seat, event.amount,
                                              event.medium, number, player)
            if rating is not None:
                rating.bought(event.medium, event.amount)
            return booked
        return self._booked(event, book)

    @folds(ChipsLeft, frame=False)
    def _chips_left(self, event: ChipsLeft) -> list[Effect]:
        def book(chips: dict[int, int]) -> dict[str, Any]:
            rating = self.ratings.open.get(event.seat)
            number, player = (rating.number, rating.player) if rating else (None, None)
            booked = self.day.books.left_with(event.seq, event.seat, event.amount, event.how,
                                              number, player)
            if rating is not None:
                rating.left_with(event.amount)
            return booked
        return self._booked(event, book)

    @folds(Checkpoint, frame=False)
    def _checkpoint(self, event: Checkpoint) -> list[Effect]:
        """The journal's checkpoint, checked against the fold. One written before the shuffle
        check (issue 51) holds none of it: the check starts there, as a restore from it does,
        so that a fold from either place arrives at the same state."""
        ours = self.snapshot()
        if "shuffle" not in event.state:
            ours.pop("shuffle", None)
            self.shuffle = self._shuffle_started()
        if ours != dict(event.state):
            raise FoldMismatch(f"checkpoint {event.seq} differs from the fold of the records "
                               "before it")
        return []

    @folds(ShuffleFlagged, frame=False)
    def _shuffle_flagged(self, event: ShuffleFlagged) -> list[Effect]:
        """A weak shuffle found: the alert, once a shoe for each kind of finding."""
        if self.shuffle is not None:
            self.shuffle.flagged(event)
        return [Alert("shuffle_flagged", event.text)]  # the finding is in its words

    @folds(DayClosed, frame=False)
    def _day_closed(self, event: DayClosed) -> list[Effect]:
        """A day's close, its summary checked against the fold; the next day's ledger."""
        if event.summary != self.day.summary():
            raise FoldMismatch(f"the summary of day {event.day} (record {event.seq}) differs "
                               "from the fold of the day's records")
        self.day = DayLedger(self.day.number + 1, last_label=event.day,
                             books=self.day.books.next_day())
        return []

    @folds(DaySigned, frame=False)
    def _day_signed(self, event: DaySigned) -> list[Effect]:
        return []

    @folds(DiskLow, frame=False)
    def _disk_low(self, event: DiskLow) -> list[Effect]:
        """The journal's disk at its reserve: no new round opens."""
        self.deal_refused = said("the journal's disk is down to {free} MiB (reserve {reserve} "
                                 "MiB): copy closed days out with `tablectl journal archive "
                                 "--to DIR`", free=event.free // 2**20,
                                 reserve=event.reserve // 2**20)
        return [Alert("do_not_deal", said("DO NOT DEAL: {reason}", reason=self.deal_refused),
                      blocking=True)]

    @folds(IntegrityBroken, frame=False)
    def _integrity_broken(self, event: IntegrityBroken) -> list[Effect]:
        """A break found in what the table runs on: latched, no new round opens (a round in
        progress plays out, as at the disk's reserve) until a supervisor clears it. The same
        finding twice is one."""
        found = {"check": event.check, "where": event.where, "text": event.text,
                 "evidence": event.evidence}
        if found not in self.integrity and len(self.integrity) < MOST_FINDINGS:
            self.integrity.append(found)
        return [Alert("do_not_deal", said("DO NOT DEAL: {reason}", reason=event.text),
                      blocking=True)]

    @folds(IntegrityCleared, frame=False)
    def _integrity_cleared(self, event: IntegrityCleared) -> list[Effect]:
        self.integrity = []
        return [Alert("integrity_cleared", said(
            "the integrity error was cleared by supervisor {who}: {reason}", who=event.by,
            reason=event.reason))]

    @folds(DiskOk, frame=False)
    def _disk_ok(self, event: DiskOk) -> list[Effect]:
        self.deal_refused = None
        return []

    @folds(ControllerStarted, frame=False)
    def _restarted(self, event: ControllerStarted) -> list[Effect]:
        machine = self.round
        if self.current is not None and machine is not None and machine.settled \
                and machine.state is not HOLD:
            return self._decide(self.current, event, "review", REVIEW)
        return []

    @folds(CutCardReached, frame=False)
    def _cut_card(self, event: CutCardReached) -> list[Effect]:
        machine = self.round
        self.shoe.cut_card = True
        self.shoe.change_required = not (machine is not None and machine.in_progress)
        return [Alert("cut_card", said("cut card reached: finish this round, then change the "
                                       "shoe"))]

    @folds(ShoeEmpty, frame=False)
    def _shoe_empty(self, event: ShoeEmpty) -> list[Effect]:
        machine = self.round
        if self.current is not None and machine is not None and machine.in_progress:
            return self._decide(self.current, event, "hold", said(
                "the shoe is empty in the middle of the round: bring a new shoe, then resume"))
        self.shoe.change_required = True
        return [Alert("shoe_empty", said("the shoe is empty: change the shoe"))]

    @folds(NewShoe, frame=False)
    def _new_shoe(self, event: NewShoe) -> list[Effect]:
        machine = self.round
        if machine is not None and machine.in_progress and machine.state is not HOLD:
            return [Alert("new_shoe_refused", said("a new shoe can only come between rounds or "
                                                   "while the round is on hold"))]
        self.shoe = Shoe(self.shoe.number + 1)
        if self.shuffle is not None:
            self.shuffle.new_shoe(self.shoe.number)
        if event.burn and self.config is not None and self.config.game == "baccarat":
            self.shoe.burn_left = -1
        return [Alert("new_shoe", said("shoe {number} in play: burn by the first card",
                                       number=self.shoe.number) if self.shoe.burn_left
                      else said("shoe {number} in play", number=self.shoe.number))]

    @folds(DeviceAlarm)
    def _alarm(self, event: DeviceAlarm) -> list[Effect]:
        machine = self.round
        tables = self.config.pay_tables if self.config else NO_TABLES
        words = seat_wagers_in_words(event.text, tables)  # "seat 2 Lucky Stiff sensor fault"
        detail = words.rstrip(": ")  # what was said, as the alarm has always ended
        message = said("{device} {alarm}: {detail}", device=event.device,
                       alarm=readable(event.code), detail=detail) if detail else \
            said("{device} {alarm}", device=event.device,
                 alarm=readable(event.code)).rstrip(": ")
        if event.hold and self.current is not None and machine is not None \
                and machine.in_progress:
            then = ": check the table, then resume"
            return self._decide(self.current, event, "hold",
                                said("{alarm}: check the table, then resume", alarm=message),
                                f"{event.device} {event.code}: {event.text}".rstrip(": ")
                                + then)
        return [Alert(f"{event.device}_alarm", message, blocking=event.hold)]

    @folds(DeviceFound)
    def _found(self, event: DeviceFound) -> list[Effect]:
        if event.device not in self.lost_devices:
            return []  # a device coming up as the table starts was never lost
        self.lost_devices.discard(event.device)
        held = bool(self.round and self.round.state is HOLD)
        if event.device.endswith("s"):  # the pads
            back = said("The {device} are back; resume the round when ready",
                        device=event.device) if held else \
                said("The {device} are back", device=event.device)
        else:  # the shoe
            back = said("The {device} is back; resume the round when ready",
                        device=event.device) if held else \
                said("The {device} is back", device=event.device)
        return [Alert("device_found", back)]

    @folds(DeviceLost)
    def _lost(self, event: DeviceLost) -> list[Effect]:
        machine = self.round
        self.lost_devices.add(event.device)
        message = said("lost contact with the {device} ({reason})", device=event.device,
                       reason=event.reason) if event.reason else \
            said("lost contact with the {device}", device=event.device)
        if self.current is not None and machine is not None and machine.in_progress:
            return self._decide(self.current, event, "hold",
                                said("{lost}: check the table, reconnect it, then resume",
                                     lost=message))
        return [Alert("device_lost", message, blocking=True)]

    @folds(PinsRefused)
    def _pins_refused(self, event: PinsRefused) -> list[Effect]:
        """The display answered each refusal at once."""
        return []

    @folds(LockoutLifted)
    def _lockout_lifted(self, event: LockoutLifted) -> list[Effect]:
        self.pins.note(event)
        return [Alert("lockout_lifted", said(
            "PIN lockouts at {client} lifted by supervisor {who}", client=event.client,
            who=event.by))]

    @folds(ClockStepped, frame=False)
    def _clock_stepped(self, event: ClockStepped) -> list[Effect]:
        """Nothing of the table changes; the dealer and the floor are told, as the audit's times
        jump here (the journal keeps the event where it happened)."""
        return [Alert("clock_stepped", said(
            "the table's clock was set {seconds} s against the time that passed: check its time "
            "service", seconds=event.seconds))]

    @folds(InputFailed)
    def _input_failed(self, event: InputFailed) -> list[Effect]:
        """An input the code failed on was set aside: the round it touched goes on hold for
        review (a person checks what the table could not), else it is said."""
        words = said("the controller could not apply an input ({input}: {error}); nothing of "
                     "it was booked", input=event_words(event.input), error=event.error)
        machine = self.round
        if event.hold and self.current is not None and machine is not None and \
                not machine.finished:
            return self._decide(self.current, event, "review", said(
                "{failure}: check the round, then resume it or void it", failure=words),
                f"input {event.input} failed: {event.error}")
        return [Alert("input_failed", words)]

    @folds(SupervisorRefused)
    def _supervisor_refused(self, event: SupervisorRefused) -> list[Effect]:
        return [Alert("supervisor_refused", said(
            "{action} refused for supervisor {who}: {reason}",
            action=decision_words(event.action), who=repr(event.supervisor),
            reason=event.reason))]

    @folds(CardDrawn)
    def _drawn(self, event: CardDrawn) -> list[Effect]:
        """A card burned, else dealt to the round (which it opens)."""
        if event.mode == "burn" or self.shoe.burn_left is not None:
            return self._burn(event)
        record = self._round(event)
        return record if isinstance(record, list) else self._card(record, event)

    @folds(WagerPlaced)
    def _wager(self, event: WagerPlaced) -> list[Effect]:
        """A wager, refused before it opens a round on a seat the table does not have (it
        would play nowhere)."""
        if self.config is not None and (refused := self._no_such_seat(event.seat, wager=True)):
            return [refused]
        return self._in_round(event)


    @folds(CardMisread)
    def _misread(self, event: CardMisread) -> list[Effect]:
        record = self._round(event)
        if isinstance(record, list):
            return record
        return self._decide(record, event, "set_aside", said(
            "the shoe could not read a card ({detail}): name it and assign it to a hand, or "
            "void it", detail=event.detail) if event.detail else said(
            "the shoe could not read a card: name it and assign it to a hand, or void it"))

    @folds(CardVoided)
    def _card_voided(self, event: CardVoided) -> list[Effect]:
        """The card set aside, else the last played card, voided."""
        record = self._round(event)
        if isinstance(record, list):
            return record
        if record.machine.pending_card is None:
            return self._void_played_card(record, event)
        return self._feed(record, event)

    @folds(CardAssigned)
    def _card_assigned(self, event: CardAssigned) -> list[Effect]:
        """A card set aside given to a hand: a misread one named counts in the shoe."""
        record = self._round(event)
        if isinstance(record, list):
            return record
        if event.card and record.machine.pending_card:
            self.shoe.counts[parse_card(event.card)] += 1
        return self._feed(record, event)

    def _card(self, record: RoundRecord, event: CardDrawn) -> list[Effect]:
        card = event.card
        machine = record.machine
        assert self.config is not None
        decks = self.config.rules.decks
        if self.shoe.counts[card] >= decks:
            why = f"came out more often than a {decks}-deck shoe holds it: an impossible duplicate"
            return self._decide(record, event, "set_aside", said(
                "{card} came out more often than a {decks}-deck shoe holds it: an impossible "
                "duplicate", card=card_words(str(card)), decks=decks), f"{card} {why}")
        self.shoe.counts[card] += 1
        if self.shoe.change_required and machine.state in (BETTING, LOCKED):
            return self._decide(record, event, "set_aside", said(
                "the cut card was reached: change the shoe before dealing a new round"))
        return self._feed(record, event)

    def _burn(self, event: CardDrawn) -> list[Effect]:
        card = event.card
        self.shoe.counts[card] += 1
        if self.shoe.burn_left == -1:  # baccarat: the first card says how many to burn
            self.shoe.burn_left = 10 if card.is_ten_value else card.rank
        elif self.shoe.burn_left is not None:
            self.shoe.burn_left -= 1
        if self.shoe.burn_left == 0:
            self.shoe.burn_left = None
        if self.current is not None:
            self._touch(self.current)
            self.current.machine.cards.append(DealtCard(card, Target(Kind.BURN), event.seq))
        return []
