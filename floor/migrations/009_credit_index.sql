-- The ratings each credit names (issue 34), so that a rating's credits are found by its own key,
-- never by reading every credit its table sent; and a rating's rounds in `bigint`, as the
-- protocol bounds a whole rating's rounds at 2^31-1 and credits may add to them.
ALTER TABLE ratings ALTER COLUMN rounds TYPE bigint;

CREATE TABLE credits (
    table_id  text NOT NULL,
    rating    bigint NOT NULL,
    n         bigint NOT NULL,                   -- the `credit` message
    PRIMARY KEY (table_id, rating, n)
);
INSERT INTO credits (table_id, rating, n)
SELECT m.table_id, (c->>'rating')::bigint, m.n
FROM messages m, jsonb_array_elements(m.body->'credited') AS c
WHERE m.topic = 'credit'
ON CONFLICT DO NOTHING;
