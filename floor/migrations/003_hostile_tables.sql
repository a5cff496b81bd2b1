-- What a hostile or broken table cannot do to the floor (issue 20).

-- Every payload the floor refused, with why, once per payload (the times it came are counted):
-- the newest 10,000 are kept (`floor.store`).
CREATE TABLE rejected (
    id        bigserial PRIMARY KEY,
    first     timestamptz NOT NULL,              -- when a floor process first received it
    received  timestamptz NOT NULL,              -- and last
    times     integer NOT NULL DEFAULT 1,
    floor     text NOT NULL,                     -- which floor process refused it last
    topic     text NOT NULL,
    table_id  text,                              -- the table its topic names, if a valid id
    reason    text NOT NULL,
    bytes     integer NOT NULL,                  -- the payload's whole size
    sha256    bytea NOT NULL UNIQUE,             -- of the whole payload
    payload   bytea NOT NULL                     -- its first 16 KiB
);
CREATE INDEX rejected_table ON rejected (table_id, id);

-- The first message a table's journal sends the floor (a journal that had no floor link let
-- its earlier messages go), as the messages stored from it name it. `through` counts from
-- here, over messages stored here only.
ALTER TABLE tables ADD COLUMN from_n bigint;

-- When the floor received each message; `clock_off`: the table's time was more than the
-- tolerance away from that, and the round counts at its receipt instead.
ALTER TABLE messages ADD COLUMN received timestamptz;
ALTER TABLE messages ADD COLUMN clock_off boolean NOT NULL DEFAULT false;
ALTER TABLE rounds ADD COLUMN clock_off boolean NOT NULL DEFAULT false;

-- Alerts are listed in the order the floor received them (a table cannot back-date its way to
-- the head of the list), a few per table.
ALTER TABLE alerts ADD COLUMN received timestamptz;
UPDATE alerts SET received = utc;
ALTER TABLE alerts ALTER COLUMN received SET NOT NULL;
ALTER TABLE alerts ALTER COLUMN received SET DEFAULT now();
DROP INDEX alerts_open;
CREATE INDEX alerts_open ON alerts (table_id, received) WHERE ack_by IS NULL;

-- Sums that cannot overflow, whatever the rounds (each round is bounded on the way in).
ALTER TABLE tallies ALTER COLUMN drop_minor TYPE numeric;
ALTER TABLE tallies ALTER COLUMN win_minor TYPE numeric;
