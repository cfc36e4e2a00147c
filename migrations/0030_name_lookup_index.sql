-- The trigram index on the bare flag name (0010) also serves `name = x` and `name = ANY(...)`
-- (pg_trgm 1.6 added equality), and the planner priced it below the primary key. With many flags
-- sharing a prefix every posting list matched: reading 40 flags by name among 10,000 took 300-800
-- ms (10,000-20,000 buffers) instead of a few. That is the incremental configuration read, and any
-- join of features by name. The search's index moves to an expression that only the search uses
-- (src/features/search/search.store.ts: `lower(f.name) ILIKE`, the same matches as `f.name ILIKE`).
DROP INDEX features_name_trgm;
CREATE INDEX features_name_lower_trgm ON features USING gin (lower(name) gin_trgm_ops);
