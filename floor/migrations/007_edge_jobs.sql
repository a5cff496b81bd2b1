-- Edges worked out in a bounded worker, from the configurations a table sent itself (issue 34).
-- `edges` keeps only edges worked out: they hold for every table. What could not be worked out
-- is a table's own (another table cannot fail a key for it), kept until something changes that
-- could make it succeed: the table sends another configuration (it then has more `config`
-- messages than `configs`), or, for a job that broke a limit, the floor runs with other limits.
DELETE FROM edges WHERE edges IS NULL;
ALTER TABLE edges DROP COLUMN failed;
ALTER TABLE edges ALTER COLUMN edges SET NOT NULL;

CREATE TABLE edge_failures (
    table_id  text NOT NULL,
    key       text NOT NULL,
    reason    text NOT NULL,
    configs   bigint NOT NULL,              -- the table's `config` messages stored when it failed
    limits    text,                         -- the limits it broke; null: no limit was broken
    failed    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, key)
);

-- The key each of a table's configurations from before edge keys (no `edge_key`) rebuilds to,
-- worked out once in the worker (`key` null: it does not rebuild, `reason` says why).
CREATE TABLE config_keys (
    table_id  text NOT NULL,
    n         bigint NOT NULL,
    key       text,
    reason    text,
    limits    text,                         -- as in edge_failures
    PRIMARY KEY (table_id, n)
);
