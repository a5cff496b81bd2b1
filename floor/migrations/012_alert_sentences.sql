-- An alert's sentence as the floor made it (issue 49): its message id and named parts beside
-- the English `text`, so the pit translates it from them rather than by reading the English
-- back; NULL for a text the floor keeps as English alone (cut short, or written before).
ALTER TABLE alerts ADD COLUMN said jsonb;
