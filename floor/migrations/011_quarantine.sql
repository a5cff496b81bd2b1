-- What the floor failed on (issue 47): a message that passed the protocol but raised while the
-- floor stored or booked it, or a gaming day's books check that raised (after a message or a
-- drop's import). Each is set aside here whole, with the exception and where it was raised,
-- and the floor goes on; `tablectl floor retry` (or the pit's Retry) tries it again after an
-- upgrade. A message set aside counts as had: the floor tells its table it has it (it is here,
-- whole), so the table does not send it again and again.
CREATE TABLE quarantine (
    id           bigserial PRIMARY KEY,
    table_id     text NOT NULL,
    n            bigint,                   -- the message's number; null for a books check
    day          date,                     -- the gaming day of a books check
    topic        text NOT NULL,            -- the message's topic; `books` for a check
    payload      bytea,                    -- the message whole, as it came off the broker
    digest       bytea,                    -- SHA-256 of its body, as `messages.digest`
    received     timestamptz,              -- when a floor process received it
    dated        timestamptz,              -- the moment it counts at (floor.payloads)
    error        text NOT NULL,            -- the exception: its type and its text
    raised_at    text NOT NULL,            -- the traceback's last frame: file:line function
    first        timestamptz NOT NULL DEFAULT now(),
    last         timestamptz NOT NULL DEFAULT now(),
    times        integer NOT NULL DEFAULT 1,  -- the tries that failed
    floor        text NOT NULL,            -- the floor process or the command that failed last
    released     timestamptz,              -- stored or checked at last, by a later try
    released_by  text,
    CHECK ((n IS NULL) <> (day IS NULL))
);
CREATE UNIQUE INDEX quarantine_message ON quarantine (table_id, n) WHERE n IS NOT NULL;
CREATE UNIQUE INDEX quarantine_check ON quarantine (table_id, day)
    WHERE day IS NOT NULL AND released IS NULL;
CREATE INDEX quarantine_open ON quarantine (id) WHERE released IS NULL;

-- An alert is one per message and kind: a message set aside has its `quarantine` alert, and
-- once a retry stores it, the alert of its own (a hold's, a books alert on a closer) beside it.
ALTER TABLE alerts DROP CONSTRAINT alerts_pkey;
ALTER TABLE alerts ADD PRIMARY KEY (table_id, n, kind);
