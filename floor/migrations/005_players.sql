-- Players and dealers (issue 24): each table's ratings as it last sent them, the players the
-- floor has seen (their casino ids only: names stay in the casino's player system), each
-- configuration's house edges for the theo, and each round's dealer.

CREATE TABLE ratings (
    table_id      text NOT NULL,
    number        bigint NOT NULL,                 -- the table's ratings, counted from its first
    n             bigint NOT NULL,                 -- the message that brought this state
    player        text,                            -- null: anonymous, kept by seat
    seat          integer NOT NULL,
    start_utc     timestamptz NOT NULL,
    end_utc       timestamptz,                     -- null: open
    reason        text,                            -- why it closed
    rounds        integer NOT NULL,
    actual_minor  bigint NOT NULL,                 -- the player's result
    body          jsonb NOT NULL,                  -- the rating as sent: handle by configuration
    PRIMARY KEY (table_id, number)
);
CREATE INDEX ratings_player ON ratings (player, start_utc) WHERE player IS NOT NULL;
CREATE INDEX ratings_start ON ratings (start_utc);
CREATE INDEX ratings_open ON ratings (table_id, seat) WHERE end_utc IS NULL;

CREATE TABLE players (
    player_id   text PRIMARY KEY,
    first_utc   timestamptz NOT NULL,
    last_utc    timestamptz NOT NULL
);

-- The house edge of every spot of a configuration, by its `edge_key`, worked out by a floor
-- process from the configuration's message (`failed`: why it could not be).
CREATE TABLE edges (
    key       text PRIMARY KEY,
    edges     jsonb,
    failed    text,
    computed  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_configs ON messages ((body->>'edge_key')) WHERE topic = 'config';

ALTER TABLE rounds ADD COLUMN dealer text;
