-- Every configuration change appends an event in its own transaction, so the newest event id is a
-- revision of the configuration. Announce it on commit so every instance (LISTEN) refreshes its
-- in-memory snapshot at once; instances also poll the revision as a safety net.
CREATE FUNCTION notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('flagship_events', (SELECT coalesce(max(id), 0)::text FROM inserted_events));
  RETURN NULL;
END
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events
  REFERENCING NEW TABLE AS inserted_events FOR EACH STATEMENT EXECUTE FUNCTION notify_events();
