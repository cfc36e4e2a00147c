-- What every insert into `events` sets off, in one statement-level trigger instead of two
-- (events_count, 0001; events_notify, 0003): each trigger call is a PL/pgSQL call that reads the
-- statement's transition table again, and every configuration write pays for them. One call does
-- both, in the same order: the count first, then the announcement of the newest id. An insert of
-- no rows (a write that changed nothing, a create refused by its own statement) announces nothing:
-- the old `0` told no instance anything, and a notifying commit takes PostgreSQL's cluster-wide
-- notification lock.
CREATE FUNCTION events_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added bigint;
  newest bigint;
BEGIN
  SELECT count(*), max(id) INTO added, newest FROM inserted_events;
  IF added > 0 THEN
    INSERT INTO event_counts (shard, count) VALUES (pg_backend_pid() % 16, added)
      ON CONFLICT (shard) DO UPDATE SET count = event_counts.count + EXCLUDED.count;
    PERFORM pg_notify('flagship_events', newest::text);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER events_count ON events;
DROP TRIGGER events_notify ON events;
DROP FUNCTION count_events();
DROP FUNCTION notify_events();

CREATE TRIGGER events_inserted AFTER INSERT ON events
  REFERENCING NEW TABLE AS inserted_events FOR EACH STATEMENT EXECUTE FUNCTION events_inserted();
