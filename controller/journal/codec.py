"""How a record's text is stored: raw DEFLATE against a preset dictionary.

The hash chain covers a record's canonical JSON text, never these bytes, so the storage form can
change (a segment, a migration) without touching the chain. A stored body is one mode byte and a
raw DEFLATE stream:
- mode 1 (an anchor): compressed against `DICTIONARY` alone;
- mode 2: compressed against `DICTIONARY` followed by the previous record's text. Consecutive
  events share most of their text (the time, the sequence number, the keys), so this halves the
  size of a typical event (45 -> 21 bytes on the autopilot's load).
The writer makes an anchor of every record whose seq is 1 modulo `BLOCK`, and of the first record
of every file, so a reader reaches any record by decoding at most `BLOCK` records from an anchor.
A text stored alone, not in the chain (a floor message, a round's settlements), is mode 3 (see
`MESSAGE`); files written before it hold such texts in mode 1, and both decode.

`DICTIONARY` is part of the file format ("deflate-v1" in a file's meta): never change it; a new
dictionary is a new codec name, as mode 3's made "deflate-v2" (a tablectl that reads v1 only
refuses a v2 file by its name, rather than failing on its first message).
"""

from __future__ import annotations

import zlib
from typing import Final

CODEC: Final = "deflate-v2"  # deflate-v1 and mode 3 (below)
READ_CODECS: Final = ("deflate-v1", CODEC)  # a file of v1 holds no mode 3
BLOCK: Final = 64
ANCHOR, DELTA = 1, 2

_SAMPLES: Final = (
    '{"kind":"controller_started","seq":1,"utc":"2025-01-01T06:00:00.000Z","version":"0.2.0"}',
    '{"game":"blackjack","kind":"config_changed","pay_tables":{"blackjack_tie":"1",'
    '"dead_mans_hand":"1","lucky7":"1","lucky_stiff":"1"},"rules":{},"seq":2,"tables":{}}',
    '{"kind":"new_shoe","seq":3,"utc":"2025-01-01T06:00:00.000Z","by":"dealer","burn":false}',
    '{"kind":"checkpoint","reason":"rounds","state":{"config":{},"shoe":{"counts":{}}}}',
    '{"kind":"device_lost","device":"shoe","reason":"unplugged"}{"kind":"device_found",'
    '"device":"pads"}{"kind":"device_alarm","code":"sensor_fault","hold":false,"text":""}',
    '{"kind":"bets_locked","seq":112,"utc":"2025-01-01T06:00:00.000Z","mono_ns":123456789}',
    '{"kind":"alerts_cleared","by":"dealer"}{"kind":"payout_shown","mono_ns":1234567890}',
    '{"by":"dealer","kind":"payout_confirmed","mono_ns":1234567890123,"seq":9,"utc":"2025-',
    '{"kind":"dealer_action","action":"stand","hand":2,"seat":1}"action":"hit""action":"double"'
    '"action":"split""action":"no_insurance""action":"surrender"',
    '[[1,"main",1,1000,-1000,"lose","","0/1","0",0,"dealer"],[2,"lucky7",null,100,-100,"lose",'
    '"","0","0",0,"deal"],[3,"blackjack_tie.LS",null,500,-500,"lose","","0","0",0,"play"]]'
    '"win","push","returned","refused","lock","insurance","dead_mans_hand","lucky_stiff"',
    '{"amount":500,"kind":"wager_placed","mono_ns":1234567890123,"seat":3,"seq":9,'
    '"spot":"blackjack_tie.RS","utc":"2025-01-01T06:00:00.000Z"}"spot":"blackjack_tie.20"'
    '"spot":"blackjack_tie.BJ""spot":"lucky8_banker""spot":"lucky8_player""spot":"banker"',
    '{"card":"TS","kind":"card_drawn","mono_ns":1234567890123,"seq":10,'
    '"source":"shoe#12 card TS deck 1 game","utc":"2025-01-01T06:00:00.000Z"}',
    '{"amount":1000,"kind":"wager_placed","mono_ns":1234567890123,"seat":4,"seq":11,'
    '"spot":"main","utc":"2025-01-01T06:00:00.000Z"}',
)
DICTIONARY: Final = "".join(_SAMPLES).encode()

# Mode 3 (a message): a text stored alone, compressed against `MESSAGE_DICTIONARY`, which adds
# samples of the floor's round and credit messages and of a round's settlements to
# `DICTIONARY`: those texts share little with the events, and have no record before them to
# share with. Part of the file format as `DICTIONARY` is: never change it.
MESSAGE = 3
_MESSAGE_SAMPLES: Final = (
    '{"credited":[{"handle":{"blackjack_tie.18":100,"blackjack_tie.LS":500,"main":2500},'
    '"net":4400,"rating":1},{"handle":{"lucky7":100,"lucky_stiff":500,"main":5000},"net":-5600,'
    '"rating":3},{"handle":{"blackjack_tie.RS":100,"dead_mans_hand":500,"main":1000},"net":1900,'
    '"rating":5},{"handle":{"lucky8_banker":500,"banker":2500},"net":-3000,"rating":6}],'
    '"dealer":"D-1","edge_key":"765aecd769e65c12","utc":"2026-01-01T06:00:00.000Z"}',
    '{"cards":[["4H","seat 1 hand 1"],["6H","seat 2 hand 1"],["KS","seat 7 hand 1"],'
    '["TH","the dealer"],["7D","seat 1 hand 2"],["9C","player"],["3S","banker"],["QD","the '
    'dealer"]],"dealer":"D-1","drop":25100,"edge_key":"765aecd769e65c12","first_seq":628,'
    '"handle":{"blackjack_tie.18":200,"blackjack_tie.21":1000,"blackjack_tie.LS":1100,'
    '"blackjack_tie.RS":1100,"dead_mans_hand":500,"lucky7":100,"lucky_stiff":600,"main":18000},'
    '"last_seq":682,"payout":{"checked":14,"errors":[[1,"main",2000,1000,"under"],'
    '[2,"dead_mans_hand",300,0,"collected_winner"],[5,"lucky7",0,100,"not_collected"]],'
    '"overridden":false,"unverified":0},"settlements":[[3,"lucky7",null,100,-100,"lose",'
    '"first card not a 7","0/1","0",0,"deal"],[5,"dead_mans_hand",null,500,1000,"win",'
    '"one_ace_or_eight","2/1","0",0,"deal"],[6,"lucky_stiff",null,100,100,"win","blackjack",'
    '"1/1","0",0,"deal"],[6,"main",1,1000,1500,"win","blackjack","3/2","0",0,"peek"],'
    '[6,"blackjack_tie.21",null,500,-500,"lose","one side blackjack","0/1","0",0,"peek"],'
    '[3,"main",1,5000,-5000,"lose","player bust","0/1","0",0,"play"],[1,"main",1,5000,5000,'
    '"win","dealer bust","1/1","0",0,"end"],[2,"main",2,1000,0,"push","18 ties 18","0","0",0,'
    '"end"],[4,"main",1,1000,-1000,"lose","17 loses to 20","0/1","0",0,"end"],'
    '[1,"blackjack_tie.LS",null,500,-500,"lose","dealer bust","0/1","0",0,"end"],'
    '[2,"banker",null,2500,2375,"win","banker 8 v 6","19/20","0",0,"end"],'
    '[3,"lucky8_player",null,100,-100,"lose","no 8","0/1","0",0,"end"]],"shoe":1,'
    '"started":"2026-01-01T06:00:00.000Z","status":"confirmed","win":-8100}',
)
MESSAGE_DICTIONARY: Final = DICTIONARY + "".join(_MESSAGE_SAMPLES).encode()


class CodecError(ValueError):
    """A stored body that does not decode."""


def encode(text: str, previous: str | None) -> bytes:
    """A record's text as stored; `previous` is the record before it, None for an anchor."""
    mode, zdict = (ANCHOR, DICTIONARY) if previous is None else (DELTA,
                                                                 DICTIONARY + previous.encode())
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, zdict)
    return bytes((mode,)) + packer.compress(text.encode()) + packer.flush()


def encode_message(text: str) -> bytes:
    """A text stored alone (a floor message, a round's settlements): mode 3."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY,
                              MESSAGE_DICTIONARY)
    return bytes((MESSAGE,)) + packer.compress(text.encode()) + packer.flush()


def is_anchor(blob: bytes) -> bool:
    return bool(blob) and blob[0] == ANCHOR


def decode(blob: bytes, previous: str | None) -> str:
    """A stored body back to its text; a DELTA body needs the text of the record before it."""
    if not blob or blob[0] not in (ANCHOR, DELTA, MESSAGE):
        raise CodecError("unknown storage mode")
    if blob[0] == DELTA:
        if previous is None:
            raise CodecError("stored against a record that is not here")
        zdict = DICTIONARY + previous.encode()
    else:
        zdict = MESSAGE_DICTIONARY if blob[0] == MESSAGE else DICTIONARY
    unpacker = zlib.decompressobj(-15, zdict)
    try:
        data = unpacker.decompress(blob[1:]) + unpacker.flush()
        if not unpacker.eof:
            raise CodecError("truncated")
        return data.decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise CodecError(str(exc)) from None


def is_anchor_seq(seq: int) -> bool:
    return seq % BLOCK == 1


def block_start(seq: int) -> int:
    """The anchor at or before `seq` in the seq numbering (a file may start later)."""
    return seq - (seq - 1) % BLOCK
