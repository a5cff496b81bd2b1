-- The floor's first schema: every message each table sent, and what the pit reads of them.

-- Each table as it last reported itself (its retained status) and what the floor knows of it.
CREATE TABLE tables (
    table_id    text PRIMARY KEY,
    game        text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT 'unknown',   -- open, closed, offline
    detail      jsonb NOT NULL DEFAULT '{}',       -- the status message as sent
    status_utc  timestamptz,                      -- when the table sent it
    last_n      bigint NOT NULL DEFAULT 0,        -- the last message the table had made by then
    received    timestamptz,                      -- when a floor process received the status
    rounds      bigint NOT NULL DEFAULT 0,        -- rounds over, stored from this table
    stored_n    bigint NOT NULL DEFAULT 0,        -- its highest message number stored
    through     bigint NOT NULL DEFAULT 0,        -- every message 1..through is stored
    last_utc    timestamptz,                      -- when that message was committed at the table
    last_stored timestamptz,                      -- and when it was stored here
    first_seen  timestamptz NOT NULL DEFAULT now()
);

-- Every message, once: the key is the table and the message's number (`n`, 1, 2, ... per
-- table, in journal order). `digest` is the SHA-256 of the body as sent.
CREATE TABLE messages (
    table_id  text NOT NULL,
    n         bigint NOT NULL,
    seq       bigint NOT NULL,                   -- the journal record that made it
    topic     text NOT NULL,
    round     integer,
    utc       timestamptz NOT NULL,              -- committed at the table
    stored    timestamptz NOT NULL DEFAULT clock_timestamp(),
    body      jsonb NOT NULL,
    digest    bytea NOT NULL,
    PRIMARY KEY (table_id, n)
);
CREATE INDEX messages_topic ON messages (table_id, topic, n);

-- Rounds over, for the pit's figures: drop and the house's result in minor units.
CREATE TABLE rounds (
    table_id    text NOT NULL,
    n           bigint NOT NULL,
    round       integer NOT NULL,
    status      text NOT NULL,                   -- confirmed or voided
    closed_utc  timestamptz NOT NULL,
    drop_minor  bigint NOT NULL,
    win_minor   bigint NOT NULL,
    PRIMARY KEY (table_id, n)
);
CREATE INDEX rounds_table ON rounds (table_id, round);

-- The same rounds added up by quarter hour (time zones differ from UTC by whole quarters): a
-- gaming day's or a shift's figures read a few dozen rows per table, whatever the traffic.
CREATE TABLE tallies (
    table_id    text NOT NULL,
    quarter     timestamptz NOT NULL,
    rounds      integer NOT NULL,                -- confirmed rounds
    drop_minor  bigint NOT NULL,
    win_minor   bigint NOT NULL,
    PRIMARY KEY (table_id, quarter)
);
CREATE INDEX tallies_quarter ON tallies (quarter);

-- What a supervisor must acknowledge: holds, past-posting, corrections, device faults.
CREATE TABLE alerts (
    table_id  text NOT NULL,
    n         bigint NOT NULL,
    kind      text NOT NULL,
    round     integer,
    utc       timestamptz NOT NULL,
    text      text NOT NULL,
    ack_by    text,
    ack_utc   timestamptz,
    PRIMARY KEY (table_id, n)
);
CREATE INDEX alerts_open ON alerts (utc) WHERE ack_by IS NULL;

-- A message whose key was already stored with other content: kept for review, never merged.
CREATE TABLE conflicts (
    table_id  text NOT NULL,
    n         bigint NOT NULL,
    received  timestamptz NOT NULL DEFAULT now(),
    digest    bytea NOT NULL,
    body      jsonb NOT NULL,
    PRIMARY KEY (table_id, n, digest)
);

-- The pit's own login: supervisors of the floor, not the tables' PINs.
CREATE TABLE supervisors (
    name      text PRIMARY KEY,
    password  text NOT NULL,                     -- PBKDF2-SHA256, as `tablectl floor user add` makes
    created   timestamptz NOT NULL DEFAULT now(),
    disabled  boolean NOT NULL DEFAULT false
);
CREATE TABLE sessions (
    token    bytea PRIMARY KEY,                  -- SHA-256 of the cookie's value
    name     text NOT NULL REFERENCES supervisors ON DELETE CASCADE,
    expires  timestamptz NOT NULL
);
