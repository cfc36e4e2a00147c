-- Flag names SDKs report in metrics that no flag has, for the application overview's
-- missingFeatures and GET /api/admin/metrics/unknown-flags. Bounded: the client-api slice keeps the
-- 1,000 most recently seen (name, application, environment) rows, so no SDK can grow it without limit.
CREATE TABLE unknown_flags (
  name text NOT NULL,
  app_name text NOT NULL,
  environment text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, app_name, environment)
);
CREATE INDEX unknown_flags_seen ON unknown_flags (seen_at DESC);
CREATE INDEX unknown_flags_app ON unknown_flags (app_name, environment);
