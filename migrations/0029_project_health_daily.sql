-- Project health over time (issue 16, GET /api/admin/projects/:projectId/health-history): one row
-- per project and UTC day with the figures the project had at the last round of the health job
-- that day (src/features/projects/health-history.service.ts; a later round the same day overwrites
-- them). Health as docs/api.md §5 defines it; flags counts the non-archived ones, stale those
-- marked stale, potentially_stale those not stale but past their type's lifetime. The rows go with
-- their project.
CREATE TABLE project_health_daily (
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE ON UPDATE CASCADE,
  day date NOT NULL,
  health integer NOT NULL CHECK (health BETWEEN 0 AND 100),
  flags integer NOT NULL CHECK (flags >= 0),
  stale integer NOT NULL CHECK (stale >= 0),
  potentially_stale integer NOT NULL CHECK (potentially_stale >= 0),
  PRIMARY KEY (project_id, day)
);
