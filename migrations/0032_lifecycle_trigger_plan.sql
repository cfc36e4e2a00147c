-- The trigger that keeps features.lifecycle_stage (0020) joins the changed flags to `features`. A
-- PL/pgSQL statement is planned once per session and the plan kept until the table's statistics
-- change: planned while `features` was small (a new database, a fresh instance on a small one), it
-- read the whole table by a sequential scan, and went on doing so for every flag created, archived
-- or moved to another stage as the table grew. Measured: creates on a pool of long-lived
-- connections fell from 907 to 437 per second within 20 s (each adding ~1,500 flags), and PGlite,
-- which never analyses its tables, would keep such a plan for the life of the process. The join
-- looks up each changed flag by its primary key, whatever the table's size.
ALTER FUNCTION feature_current_stages() SET enable_seqscan = off;
