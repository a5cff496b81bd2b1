"""The pit page and its API (aiohttp), fed live from PostgreSQL.

- `GET /` the pit page; `GET /static/...` its script and style.
- `GET /api/tables`: one object per table: `table`, `game`, `status` (open, closed, offline),
  `rounds` (rounds over received from it), its round and phase (`phase`, the key, and
  `phase_text`, in words), hold, lost devices, the link's backlog (messages past `through`, the
  last the floor has without a gap) and lag, and its figures for the gaming day and the shift.
- `GET /api/floor`: the floor's totals; `GET /api/tables/{id}/rounds?limit=N`: its last rounds,
  as the table sent them plus `status_text`, `cards_text` and `settlements_text` in words;
  `GET /api/alerts`: open alerts and the latest acknowledged.

Amounts are in minor units (cents). In the figures, `drop` is the handle (the total wagered, as
the bet sensors count it), `win` the house's win, and `hold_pct` the win as a percentage of the
handle: the keys stay as the API has always named them; the page says handle and win % of
handle.
- `GET /events`: Server-Sent Events: `tables` (the tables that changed), `floor` and `alerts`,
  within `TICK_S` of a batch stored by any floor process (PostgreSQL's LISTEN/NOTIFY), and
  `ping` every second with this process's health.
- `POST /api/login`, `POST /api/logout`, `POST /api/alerts/ack` (`{"table", "n"}`): the
  acknowledgement is stored with the logged-in supervisor's name.
- `GET /health`: the writer, the database and the broker, each up or down since when; 503 when
  one is down; and how many messages and checks are set aside (`quarantined`).
- `GET /api/quarantine`: what is set aside (floor.aside); `POST /api/quarantine/retry`
  (`{}`, or `{"id"}` for one): a logged-in supervisor has it tried again (floor.retry).
- `GET /favicon.ico`: the table's icon, the dealer display's, before any login.
- `POST /api/tables/{id}/verify` (`{}`): a logged-in supervisor asks the table for a seeded
  verification of its software (floor.verify); `GET /api/verifications/{id}`: its result. The
  tables' list carries each table's `version` and last `verification`.

A handler's unexpected failure is a 500 with one line of JSON, `{"error", "id"}`, and the log
has the same id with the traceback; a database that is gone is a 503.

It binds to 127.0.0.1 unless told otherwise. On loopback, reading needs no login (as the dealer
display); on any other address every request but the login needs a session. Acknowledging
always does. The `Host` and `Origin` checks are the dealer display's (`plumbing.web.Gate`), for
`https` when the page is served over TLS, by this process or by a trusted proxy
(`X-Forwarded-Proto` and `X-Forwarded-For` are believed from that address only). No page may
frame it.

A viewer that does not keep up is never queued for without bound: it holds a few updates, then
one mark that it needs everything again, and a write that stalls past `WRITE_S` drops it.

Each feature is a module with its own route table (issue 49): the door (login.py: the pages,
the login), the live stream (stream.py), the tables and alerts (tables.py), players and dealers
(people.py), the books and cash (ledger.py), the slips (transfers.py), the languages
(languages.py), the upkeep (upkeep.py: health, what is set aside) and the verifications
(verifying.py); what they share is one
object (state.py), and every request passes one guard (guard.py).
"""

from __future__ import annotations

from aiohttp import web

from floor.pit import (
    languages,
    ledger,
    login,
    people,
    stream,
    tables,
    transfers,
    upkeep,
    verifying,
)
from floor.pit.guard import guard
from floor.pit.state import BODY_MAX, PIT, STATIC, VIEWER_BACKLOG, PitState
from plumbing.web import frame_headers

__all__ = ["VIEWER_BACKLOG", "Pit"]


class Pit(PitState):
    """The pit page and its API: the shared state, and the application made of the features'
    route tables."""

    def app(self) -> web.Application:
        app = web.Application(middlewares=[guard], client_max_size=BODY_MAX)
        app[PIT] = self
        for feature in (login, tables, stream, people, ledger, transfers, upkeep, languages,
                        verifying):
            app.add_routes(feature.routes)
        app.add_routes([web.static("/static", STATIC)])  # after the shared script of words
        app.cleanup_ctx.append(stream.background)
        app.on_shutdown.append(stream.end_streams)
        app.on_response_prepare.append(frame_headers)
        return app
