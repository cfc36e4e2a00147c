-- The segment ids of a strategy, ascending (the client API order), '{}' when none. One definition
-- for every reader (flag view, strategy lists, snapshot) instead of the same subquery in each.
CREATE FUNCTION strategy_segment_ids(strategy_id text) RETURNS integer[]
  LANGUAGE sql STABLE
  AS $$
    SELECT coalesce(array_agg(segment_id ORDER BY segment_id), '{}')
    FROM feature_strategy_segment WHERE feature_strategy_id = strategy_id
  $$;
