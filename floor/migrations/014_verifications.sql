-- Issue 50: the floor's seeded verifications of the software each table runs. A request is a
-- row from when it is asked (by the pit or `tablectl floor verify`) until its result, stored
-- once: verified, mismatch, unknown_release, no_answer (past its deadline), or refused (the
-- table said why it cannot answer). A floor process claims an unsent request (`sent_by`), sends
-- it, and its deadline runs from then.
CREATE TABLE verifications (
    id bigserial PRIMARY KEY,
    table_id text NOT NULL,
    seed bytea NOT NULL,
    asked_by text NOT NULL,
    asked_utc timestamptz NOT NULL DEFAULT now(),
    sent_by text,
    sent_utc timestamptz,
    deadline timestamptz,
    result text CHECK (result IN ('verified', 'mismatch', 'unknown_release', 'no_answer',
                                  'refused')),
    answered_utc timestamptz,
    version text,
    digest text,
    detail text
);
CREATE INDEX verifications_table ON verifications (table_id, id DESC);
CREATE INDEX verifications_open ON verifications (id) WHERE result IS NULL;
