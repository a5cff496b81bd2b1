-- Issue 50's open end: a table answers a verification by reading every file of its package, so
-- a request is asked of a table at most once at a time. Asking again while one is open gives
-- that one (floor/verify.py, ASK). Requests a floor holds open from before are settled first:
-- the latest of each table stays open, each older one is no answer, superseded.
UPDATE verifications SET result = 'no_answer', answered_utc = now(),
       detail = 'superseded by a later request to the same table'
 WHERE result IS NULL
   AND id NOT IN (SELECT max(id) FROM verifications WHERE result IS NULL GROUP BY table_id);
CREATE UNIQUE INDEX verifications_one_open ON verifications (table_id) WHERE result IS NULL;
