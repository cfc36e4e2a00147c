-- The retention job (client-api slice) deletes instances unseen for a while and hourly metrics
-- older than a configured age; these indexes let each round find them without a full scan.
CREATE INDEX client_instances_last_seen ON client_instances (last_seen);
CREATE INDEX client_metrics_env_timestamp ON client_metrics_env (timestamp);
CREATE INDEX client_metrics_env_variants_timestamp ON client_metrics_env_variants (timestamp);
