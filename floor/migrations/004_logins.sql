-- The pit's failed logins, shared by every floor process and kept across restarts, for the limits
-- in floor/accounts.py: per address, per name from an address, per name. Each login attempt
-- deletes the rows older than the window (5 minutes), so only that window's failures are here,
-- and an attempt refused before its password is checked adds none.
CREATE TABLE login_failures (
    at      timestamptz NOT NULL DEFAULT now(),
    name    text NOT NULL,                       -- as typed (at most 100 characters)
    client  text NOT NULL                        -- the address the attempt came from
);
CREATE INDEX login_failures_client ON login_failures (client, at);
CREATE INDEX login_failures_name ON login_failures (name, client, at);
CREATE INDEX login_failures_at ON login_failures (at);
