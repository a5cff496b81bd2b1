"""Fills and credits on the pit (issue 38): a supervisor requests one for a table, by
denomination, and prints its slip for the runner to take to the cage; the table signs it as the
chips arrive (the runner's PIN and a supervisor's), naming the request, and the slip of the
signed transfer prints the same way, with both signatures. The slips are HTML print views, every
text escaped."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Final

from psycopg import AsyncConnection

from controller.game.money import Currency
from controller.game.said import said
from protocol.codec import Refused
from protocol.fields import MAX_TOTAL
from protocol.topics import TABLE_ID

MOST_DENOMINATIONS: Final = 50
MOST_CHIPS: Final = 100_000  # of one denomination (as the table takes them)
KINDS: Final = ("fill", "credit")

INSERT: Final = """
INSERT INTO transfer_requests (table_id, transfer, chips, total, requested_by)
VALUES (%s, %s, %s::jsonb, %s, %s) RETURNING id, requested
"""
# A request is signed by the first transfer of its table and kind that names it.
SIGNED_BY: Final = """
LEFT JOIN LATERAL (SELECT n, utc FROM transactions t
                   WHERE t.table_id = r.table_id AND t.request = r.id AND t.kind = r.transfer
                   ORDER BY n LIMIT 1) t ON true
"""
REQUESTS: Final = """
SELECT r.id, r.table_id, r.transfer, r.chips, r.total, r.requested_by, r.requested,
       t.n, t.utc
FROM transfer_requests r""" + SIGNED_BY + """
WHERE r.requested >= %s AND r.requested < %s
ORDER BY r.id
"""
ONE_REQUEST: Final = """
SELECT r.id, r.table_id, r.transfer, r.chips, r.total, r.requested_by, r.requested,
       t.n, t.utc
FROM transfer_requests r""" + SIGNED_BY + """
WHERE r.id = %s
"""
SIGNED: Final = """
SELECT m.body, m.utc FROM messages m WHERE m.table_id = %s AND m.n = %s AND m.topic = 'transfer'
"""


def checked_request(payload: Mapping[str, Any]) -> tuple[str, str, dict[str, int], int]:
    """`{"table", "transfer", "chips"}` as the pit takes it: (table, transfer, chips,
    total), or Refused naming the field. The table checks the denominations when it signs."""
    table, transfer, chips = (payload.get(k) for k in ("table", "transfer", "chips"))
    if set(payload) - {"table", "transfer", "chips"}:
        raise Refused(f"{sorted(set(payload) - {'table', 'transfer', 'chips'})[0]}: not a "
                      "field of a request")
    if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
        raise Refused("table: not a table id")
    if transfer not in KINDS:
        raise Refused("transfer: fill or credit")
    if not isinstance(chips, dict) or not 0 < len(chips) <= MOST_DENOMINATIONS:
        raise Refused(f"chips: an object of 1 to {MOST_DENOMINATIONS} denominations")
    for key, count in chips.items():
        if not (key.isascii() and key.isdigit()) or len(key) > 12 or key.startswith("0"):
            raise Refused(f"chips.{key[:20]}: a denomination in minor units (\"2500\")")
        if isinstance(count, bool) or not isinstance(count, int) or \
                not 0 < count <= MOST_CHIPS:
            raise Refused(f"chips.{key}: a count of chips from 1 to {MOST_CHIPS:,}")
    ordered = {k: chips[k] for k in sorted(chips, key=int, reverse=True)}
    total = sum(int(k) * n for k, n in ordered.items())
    if total > MAX_TOTAL:  # what no table could sign: the wire's bound on a transfer
        raise Refused(f"chips: worth {total} minor units, over the most a fill or a credit "
                      f"carries ({MAX_TOTAL})")
    return table, str(transfer), ordered, total


async def request(db: AsyncConnection[Any], table: str, transfer: str, chips: dict[str, int],
                  total: int, by: str) -> dict[str, Any]:
    import json
    cursor = await db.execute(INSERT, (table, transfer, json.dumps(chips), total, by))
    row = await cursor.fetchone()
    assert row is not None
    return {"id": row[0], "table": table, "transfer": transfer, "chips": chips,
            "total": total, "requested_by": by, "requested": _iso(row[1]), "signed": None}


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _request(row: Any) -> dict[str, Any]:
    return {"id": row[0], "table": row[1], "transfer": row[2], "chips": row[3],
            "total": int(row[4]), "requested_by": row[5], "requested": _iso(row[6]),
            "signed": None if row[7] is None else {"n": row[7], "utc": _iso(row[8])}}


async def requests(db: AsyncConnection[Any], start: datetime, end: datetime
                   ) -> list[dict[str, Any]]:
    cursor = await db.execute(REQUESTS, (start, end))
    return [_request(row) for row in await cursor.fetchall()]


async def one_request(db: AsyncConnection[Any], number: int) -> dict[str, Any] | None:
    cursor = await db.execute(ONE_REQUEST, (number,))
    row = await cursor.fetchone()
    return None if row is None else _request(row)


async def signed(db: AsyncConnection[Any], table: str, n: int) -> dict[str, Any] | None:
    cursor = await db.execute(SIGNED, (table, n))
    row = await cursor.fetchone()
    return None if row is None else {**row[0], "table": table, "n": n, "utc": _iso(row[1])}


def slip_page(slip: Mapping[str, Any], money: Currency,
              say: Callable[[str], str] = str, tag: str = "en") -> str:
    """A slip to print: a request (`id`, not yet signed, or signed since) or a signed transfer
    (`slip`, with its runner and supervisor), its chips by denomination and total, and lines
    for what is still to sign; its words as `say` says them (the reader's language, `tag`)."""
    if "slip" in slip:
        title = say(_title(slip["transfer"], slip["slip"]))
        facts = [(said("Table"), slip["table"]), (said("Signed at the table"), slip["utc"]),
                 (said("Runner"), slip["runner"]), (said("Supervisor"), slip["supervisor"])]
        if slip.get("request"):
            facts.append((said("Requested on the pit"),
                          say(said("request {request}", request=slip["request"]))))
        if slip.get("tray_total") is not None:
            facts.append((said("The tray after it"), money.text(int(slip["tray_total"]))))
    else:
        title = say(_title(slip["transfer"], slip["id"], request=True))
        facts = [(said("Table"), slip["table"]), (said("Requested"), slip["requested"]),
                 (said("Requested by"), slip["requested_by"]),
                 (said("Signed at the table"), say(said("message {n} at {utc}",
                                                        n=slip["signed"]["n"],
                                                        utc=slip["signed"]["utc"])
                                                   if slip["signed"] else said("not yet")))]
    lines = "".join(f"<tr><td class=num>{html.escape(money.text(int(d)))}</td>"
                    f"<td class=num>{int(n):,}</td>"
                    f"<td class=num>{html.escape(money.text(int(d) * int(n)))}</td></tr>"
                    for d, n in slip["chips"].items())
    facts_html = "".join(f"<tr><th>{html.escape(say(k))}</th><td>{html.escape(str(v))}</td></tr>"
                         for k, v in facts)
    signers = (said("Runner"), said("Supervisor"), said("Cage cashier")) if "slip" not in slip \
        else (said("Cage cashier"),)
    signatures = "".join(f"<p class=sign>{html.escape(say(s))}: ______________________</p>"
                         for s in signers)
    denomination, chips, value, total = (html.escape(say(word)) for word in (
        said("Denomination"), said("Chips"), said("Value"), said("Total")))
    return f"""<!doctype html>
<html lang="{html.escape(tag)}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body {{ font: 14pt/1.4 serif; margin: 2em; }} h1 {{ font-size: 18pt; }}
table {{ border-collapse: collapse; margin: .5em 0; }} th, td {{ padding: .2em .8em;
border-bottom: 1px solid #999; text-align: left; }} .num {{ text-align: right; }}
.sign {{ margin-top: 2em; }}</style></head>
<body><h1>{html.escape(title)}</h1>
<table>{facts_html}</table>
<table><thead><tr><th class=num>{denomination}</th><th class=num>{chips}</th>
<th class=num>{value}</th></tr></thead><tbody>{lines}</tbody>
<tfoot><tr><th colspan=2>{total}</th><th class=num>{html.escape(money.text(int(slip['total'])))}
</th></tr></tfoot></table>
{signatures}
</body></html>
"""


def _title(transfer: Any, number: Any, request: bool = False) -> str:
    """A slip's heading: FILL SLIP No. 12, CREDIT REQUEST No. 3."""
    if transfer == "fill":
        return said("FILL REQUEST No. {number}", number=number) if request else \
            said("FILL SLIP No. {number}", number=number)
    if transfer == "credit":
        return said("CREDIT REQUEST No. {number}", number=number) if request else \
            said("CREDIT SLIP No. {number}", number=number)
    kind = str(transfer).upper()
    return said("{kind} REQUEST No. {number}", kind=kind, number=number) if request else \
        said("{kind} SLIP No. {number}", kind=kind, number=number)
