-- Flag search at 100,000 flags (src/features/search, bench/search.ts).

-- Text filter (`query`): a term is matched against each distinct tag as type:value (the `tags`
-- table, which every flag's tag references) before the flags carrying the matching tags are read
-- from feature_tag_by_tag (0010): a term in the tags of many flags is matched once per tag, not once
-- per flag. The expression is the one the search uses.
CREATE INDEX tags_text_trgm ON tags USING gin ((type || ':' || value) gin_trgm_ops);

-- The total of a lifecycle filter: an index-only count over a few hundred kB (a handful of stages,
-- deduplicated) instead of reading every flag's row; the page keeps features_active_stage (0011).
CREATE INDEX features_active_lifecycle ON features (lifecycle_stage) WHERE archived_at IS NULL;
