-- Game protection (issue 25): each rating's assessment comes as an `assessment` message, kept
-- in `messages` like any other; the pit finds a rating's latest by this index.
CREATE INDEX messages_assessments ON messages (table_id, (body->>'rating'), n)
    WHERE topic = 'assessment';
-- And a round by its number: the evidence a flag names, shown from the players page.
CREATE INDEX messages_round_number ON messages (table_id, round, n) WHERE topic = 'round';
