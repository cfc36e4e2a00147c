-- The transaction that recorded each event. Event ids come from a sequence when an event is
-- inserted, but transactions commit in their own order: a reader that has seen revision N may later
-- find an event below N committed. Readers keep the transactions in progress at their read
-- (pg_current_snapshot) and look for those transactions' events next time, whatever their ids:
-- unlike a window of missing ids, nothing that many ids consumed by rolled-back transactions
-- (a trial import) push out of view. Events recorded before this migration have none.
ALTER TABLE events ADD COLUMN tx xid8;
ALTER TABLE events ALTER COLUMN tx SET DEFAULT pg_current_xact_id();
CREATE INDEX events_tx ON events (tx) WHERE tx IS NOT NULL;

-- The addon delivery cursor keeps them the same way (src/features/addons/delivery.store.ts).
ALTER TABLE addon_delivery_cursor ADD COLUMN pending jsonb NOT NULL DEFAULT '[]';
