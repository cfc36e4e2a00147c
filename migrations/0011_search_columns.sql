-- Flag search at scale (src/features/search): the current lifecycle stage and the last time an SDK
-- saw a flag, kept on the flag's row so filters and sorts are served from indexes instead of a
-- lookup per flag.

-- The current stage: the latest row of feature_lifecycles (a trigger keeps it, whatever writes
-- the rows; those writes hold the flag's row lock already, see lockFlag).
ALTER TABLE features ADD COLUMN lifecycle_stage text NOT NULL DEFAULT 'initial';
CREATE FUNCTION feature_current_stage() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  flag text;
BEGIN
  IF TG_OP = 'DELETE' THEN flag := OLD.feature_name; ELSE flag := NEW.feature_name; END IF;
  UPDATE features SET lifecycle_stage = coalesce((
    SELECT l.stage FROM feature_lifecycles l WHERE l.feature_name = flag
    ORDER BY l.created_at DESC,
      array_position(array['initial','pre-live','live','completed','archived']::text[], l.stage) DESC
    LIMIT 1), 'initial')
  WHERE name = flag;
  RETURN NULL;
END
$$;
CREATE TRIGGER feature_lifecycles_current AFTER INSERT OR UPDATE OR DELETE ON feature_lifecycles
  FOR EACH ROW EXECUTE FUNCTION feature_current_stage();
UPDATE features f SET lifecycle_stage = coalesce((
  SELECT l.stage FROM feature_lifecycles l WHERE l.feature_name = f.name
  ORDER BY l.created_at DESC,
    array_position(array['initial','pre-live','live','completed','archived']::text[], l.stage) DESC
  LIMIT 1), 'initial');
CREATE INDEX features_active_stage ON features (lifecycle_stage, created_at, name) WHERE archived_at IS NULL;

-- features.last_seen_at: the latest of its environments (client metrics now write both).
UPDATE features f SET last_seen_at = s.seen
FROM (SELECT feature_name, max(last_seen_at) AS seen FROM feature_environments
      WHERE last_seen_at IS NOT NULL GROUP BY feature_name) s
WHERE s.feature_name = f.name AND (f.last_seen_at IS NULL OR f.last_seen_at < s.seen);
CREATE INDEX features_active_seen ON features (last_seen_at, created_at, name) WHERE archived_at IS NULL;
CREATE INDEX features_active_seen_desc ON features (last_seen_at DESC NULLS LAST, created_at DESC, name DESC)
  WHERE archived_at IS NULL;
