-- Event search (GET /api/admin/search/events, issue 15): with millions of events every filter has
-- an index that gives the total (and the lowest and highest matching id) without reading the log,
-- and the page (newest first: id DESC).
-- `feature` and `project` are served by events_feature_name and events_project (0001); the
-- unfiltered total comes from event_counts (0001).
CREATE INDEX events_type ON events (type, id DESC);
CREATE INDEX events_created_by_user ON events (created_by_user_id, id DESC) WHERE created_by_user_id IS NOT NULL;
CREATE INDEX events_environment ON events (environment, id DESC) WHERE environment IS NOT NULL;
-- `from`/`to`: a day range (with the id, for the range of ids the page reads).
CREATE INDEX events_created_at ON events (created_at, id);
-- `query`: case-insensitive substring of the data, the creator or the flag name. One trigram index
-- (pg_trgm, 0010) over the three joined by newlines: a text without a newline is in the joined
-- text exactly when it is in one of the three (src/features/events/search.store.ts).
CREATE INDEX events_text_trgm ON events
  USING gin ((coalesce(data::text, '') || chr(10) || created_by || chr(10) || coalesce(feature_name, '')) gin_trgm_ops);
