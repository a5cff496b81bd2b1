-- A table's sentences for people in a message (protocol 1.1, issue 49): each text of its body
-- by its place, as its message id and named parts, so the pit translates the table's words
-- (a round's awards, a hold's reason) from them; NULL for a message that carried none (1.0).
ALTER TABLE messages ADD COLUMN sentences jsonb;
