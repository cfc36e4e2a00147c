-- Flag search (src/features/search, GET /api/admin/search/features): indexes the planner uses to
-- serve each filter and sort without reading every flag. pg_trgm ships with PostgreSQL (a trusted
-- extension since 13: a database owner may create it) and with PGlite's contrib, which
-- src/platform/db/database.ts loads when it opens PGlite.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- `query`: case-insensitive substring of the name, the description or a tag's type:value.
CREATE INDEX features_name_trgm ON features USING gin (name gin_trgm_ops);
CREATE INDEX features_description_trgm ON features USING gin (description gin_trgm_ops);
CREATE INDEX feature_tag_trgm ON feature_tag USING gin ((tag_type || ':' || tag_value) gin_trgm_ops);

-- Sorts of the active flags, each ending in the tie-break (created_at, name): a page is the first
-- rows of an index scan, forwards or backwards. `name` is served by the primary key.
CREATE INDEX features_active_created ON features (created_at, name) WHERE archived_at IS NULL;
CREATE INDEX features_active_type ON features (type, created_at, name) WHERE archived_at IS NULL;
CREATE INDEX features_active_project_created ON features (project, created_at, name) WHERE archived_at IS NULL;
CREATE INDEX features_active_stale ON features (stale, created_at, name) WHERE archived_at IS NULL;
-- The archive (archived=IS:true) and the stale states are small parts of the flags.
CREATE INDEX features_archived_created ON features (created_at, name) WHERE archived_at IS NOT NULL;
CREATE INDEX features_stale_created ON features (created_at, name) WHERE archived_at IS NULL AND stale;
CREATE INDEX features_potentially_stale_created ON features (created_at, name)
  WHERE archived_at IS NULL AND potentially_stale AND NOT stale;
CREATE INDEX features_created_by ON features (created_by_user_id) WHERE archived_at IS NULL;

-- Flags by tag, by environment state, by favorite (the primary keys lead with the flag name).
CREATE INDEX feature_tag_by_tag ON feature_tag (tag_type, tag_value, feature_name);
CREATE INDEX feature_environments_state ON feature_environments (environment, enabled, feature_name);
CREATE INDEX favorite_features_user ON favorite_features (user_id, feature_name);
