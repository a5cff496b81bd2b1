-- Ratings credited round by round (issue 34): a table sends a rating whole when it opens and
-- closes, and each round's credits in one `credit` message. A rating's row is its newest whole
-- state (`n`) with every credit of a later message added; `last_n` is the latest message in
-- it (what `floor reconcile` compares it as of).
ALTER TABLE ratings ADD COLUMN last_n bigint;
UPDATE ratings SET last_n = n;
ALTER TABLE ratings ALTER COLUMN last_n SET NOT NULL;
