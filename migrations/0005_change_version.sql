-- Writes that record no event (SDK metrics marking flags as seen) move this sequence after they
-- commit, so the change version (event count, this value) moves with everything an admin read shows.
-- Taken once here: before its first nextval a sequence's last_value already shows the start value.
CREATE SEQUENCE unlogged_changes;
SELECT nextval('unlogged_changes');
