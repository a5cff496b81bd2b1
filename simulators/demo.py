"""The demo table `tablectl run` starts without a configuration: the daemon's own pieces (the
journal, the control socket, the display, the floor link, game protection) around a whole table
on simulated hardware (simulators/rig.py): the virtual shoe on a pty and the virtual pads behind
a fake USB backend, read by the real drivers, with an autopilot dealer and players. The pads
check the payout (as `[payout] verify = "hold"` does at a table with pads): the dealer pays
and collects in chips, with mistakes at `--dealer-errors`. The journal
is the user's (`--journal`, else the state directory's), and the demo signs its days with a key
of its own beside it."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Final

from controller.daemon.app import Daemon, RoundsEnded, Stopped
from controller.daemon.config_file import DisplayConfig, JournalConfig, default_key
from controller.daemon.control import ControlServer, socket_path
from controller.daemon.service import KEEP_ROUNDS
from controller.journal.signing import keygen
from simulators.rig import Rig

TABLES: Final = {"blackjack": {"lucky_stiff": "1", "blackjack_tie": "1", "lucky7": "1",
                               "dead_mans_hand": "1"},
                 "baccarat": {"lucky8": "1"}}
SEATS: Final = {"blackjack": 7, "baccarat": 5}


# The demo's RFID chip tray (minor units -> chips) on a new journal: $57,850.00, for the Books
# dialog to read; then what the table books (`demo_tray`).
DEMO_TRAY = {500000: 4, 100000: 20, 50000: 20, 10000: 40, 2500: 100, 500: 200, 100: 300, 50: 100}


def demo(daemon: Daemon) -> int:
    """Deal until Ctrl-C, SIGTERM or `--rounds`; everything committed is in the journal, and a
    round stopped midway is dealt on at the next start."""
    options = daemon.options
    game = options.game
    journal = daemon.journal_path(None)
    journal.parent.mkdir(parents=True, exist_ok=True)
    key = default_key(journal)
    if not key.exists():
        keygen(key)
    played = 0
    with tempfile.TemporaryDirectory(prefix="tablectl-demo-") as folder:
        rig = Rig(Path(folder), game, "cardid", pay_tables=TABLES[game], journal=journal,
                  record=options.record, idle=daemon.idle, pace_s=options.pace_s,
                  side_bets=True, seats=SEATS[game], refill=True,
                  seed=random.SystemRandom().randrange(2**32), keep_rounds=KEEP_ROUNDS,
                  journal_config=JournalConfig(key=key), floor=options.floor is not None,
                  verify="hold", dealer_errors=options.dealer_errors, tray=DEMO_TRAY,
                  integrity=True)
        assert rig.loop is not None
        ended = RoundsEnded(rig.loop)  # the round a previous run left too, once it ends
        control = ControlServer(socket_path(journal), rig.loop.post)
        control.start()
        screen = daemon.display(rig.loop, f"demo {game}", DisplayConfig())
        link = daemon.floor_link(rig.loop, journal, screen)
        protection = daemon.protection(rig.loop, journal, link)
        try:
            rig.start_demo()
            daemon.announce_ready(screen, f"demo {game} table ready, journal {journal}")
            rig.check_in_background()
            while options.rounds is None or played < options.rounds:
                while rig.service.table.integrity:  # DO NOT DEAL until a supervisor clears it
                    rig.loop.step(0.2)
                    daemon.idle()
                rig.play_round()
                played += 1
            while options.stay:  # dealing no more: the display, the books and the link go on
                rig.loop.step(0.2)
                daemon.idle()
        except Stopped:
            pass
        finally:
            control.stop()
            protection.stop()
            if link is not None:
                link.stop()  # drains, the display still showing how
            screen.stop()
            rig.close()
    daemon.log.info("stopped", rounds=ended.count)
    return 0
