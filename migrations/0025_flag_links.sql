-- Links from a flag to anything about it (an issue, a dashboard, the code), as Unleash's flag links.
-- Ids are ULIDs (text), as Unleash's; a link goes with its flag when the flag is deleted for good.
CREATE TABLE feature_links (
  id text PRIMARY KEY,
  feature_name text NOT NULL REFERENCES features (name) ON DELETE CASCADE ON UPDATE CASCADE,
  url text NOT NULL CHECK (length(url) BETWEEN 1 AND 10000),
  title text CHECK (length(title) <= 255),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feature_links_feature ON feature_links (feature_name, id);
