-- The day's books (issue 38). Each transaction a table sends (`tray`, `transfer`, `buy_in`,
-- `chips_out`) is kept in `messages` like any other, and here in columns, for the pit's sums:
-- kind is opener or closer (a tray count), fill or credit, buy_in or chips_out; amount is the
-- tray's or the transfer's total, or the buy-in's or chips out's amount, in minor units.
CREATE TABLE transactions (
    table_id  text NOT NULL,
    n         bigint NOT NULL,
    kind      text NOT NULL,
    utc       timestamptz NOT NULL,
    amount    bigint NOT NULL,
    seat      integer,
    medium    text,        -- a buy-in's cash or marker; chips out's walked or colored_up
    rating    bigint,
    player    text,
    request   bigint,      -- a fill's or a credit's request from the pit, if it had one
    PRIMARY KEY (table_id, n)
);
CREATE INDEX transactions_day ON transactions (utc);
CREATE INDEX transactions_table_day ON transactions (table_id, utc);
CREATE INDEX transactions_closers ON transactions (table_id, utc) WHERE kind = 'closer';
CREATE INDEX transactions_player ON transactions (player, utc) WHERE player IS NOT NULL;

-- The count room's drop (cash and markers in the table's drop box) per table and gaming day,
-- imported on the floor (`tablectl floor drop`, `POST /api/drop`); a later import of the same
-- table and day replaces it, and says who and from where.
CREATE TABLE drops (
    table_id     text NOT NULL,
    day          date NOT NULL,
    shift        smallint NOT NULL DEFAULT 0,  -- 0: the whole day; else the shift, from 1
    drop_minor   bigint NOT NULL,
    imported     timestamptz NOT NULL DEFAULT now(),
    imported_by  text NOT NULL,
    source       text NOT NULL,
    PRIMARY KEY (table_id, day, shift)
);

-- A table's gaming day whose closer and drop are in but not every message before its closer
-- (a gap the table will fill): it is checked when the floor has them.
CREATE TABLE books_pending (
    table_id  text NOT NULL,
    day       date NOT NULL,
    PRIMARY KEY (table_id, day)
);

-- A table's rounds by when they closed: a gaming day's rounds without reading its years.
CREATE INDEX rounds_closed ON rounds (table_id, closed_utc);

-- A fill or a credit the pit requests (its slip printed for the runner), until the table signs
-- it: the table's `transfer` message then names the request.
CREATE TABLE transfer_requests (
    id            bigserial PRIMARY KEY,
    table_id      text NOT NULL,
    transfer      text NOT NULL,        -- fill or credit
    chips         jsonb NOT NULL,       -- denomination in minor units (text) -> chips
    total         bigint NOT NULL,
    requested_by  text NOT NULL,
    requested     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transfer_requests_day ON transfer_requests (requested);
