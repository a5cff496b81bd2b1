-- Which journal a table's messages come from (the id its floor link made when it first linked):
-- a table whose journal was replaced starts its numbers again, and must not be taken for the
-- old one. Messages from another journal under a known table's id are kept aside in conflicts.
ALTER TABLE tables ADD COLUMN journal text;
ALTER TABLE conflicts ADD COLUMN journal text;
