-- features.lifecycle_stage (0011) is kept by a trigger on feature_lifecycles. It ran once per row,
-- each run updating the flag's row (a new row version in every index of features, trigram indexes
-- included) even when the stage stayed the same. A batch that writes thousands of lifecycle rows in
-- one statement (the flag import) spent seconds there. Now the stage is computed once per
-- statement for the flags it touched, and a flag whose stage does not change is not updated.
-- Same result for every writer; single-row writes cost the same as before.
DROP TRIGGER feature_lifecycles_current ON feature_lifecycles;
DROP FUNCTION feature_current_stage();

CREATE FUNCTION feature_current_stages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE features f SET lifecycle_stage = s.stage
  FROM (
    SELECT c.name, coalesce((
      SELECT l.stage FROM feature_lifecycles l WHERE l.feature_name = c.name
      ORDER BY l.created_at DESC,
        array_position(array['initial','pre-live','live','completed','archived']::text[], l.stage) DESC
      LIMIT 1), 'initial') AS stage
    FROM (SELECT DISTINCT feature_name AS name FROM changed_lifecycles) c
  ) s
  WHERE f.name = s.name AND f.lifecycle_stage IS DISTINCT FROM s.stage;
  RETURN NULL;
END
$$;

-- A transition table belongs to one event, hence three triggers on the same function.
CREATE TRIGGER feature_lifecycles_inserted AFTER INSERT ON feature_lifecycles
  REFERENCING NEW TABLE AS changed_lifecycles FOR EACH STATEMENT EXECUTE FUNCTION feature_current_stages();
CREATE TRIGGER feature_lifecycles_updated AFTER UPDATE ON feature_lifecycles
  REFERENCING NEW TABLE AS changed_lifecycles FOR EACH STATEMENT EXECUTE FUNCTION feature_current_stages();
CREATE TRIGGER feature_lifecycles_deleted AFTER DELETE ON feature_lifecycles
  REFERENCING OLD TABLE AS changed_lifecycles FOR EACH STATEMENT EXECUTE FUNCTION feature_current_stages();
