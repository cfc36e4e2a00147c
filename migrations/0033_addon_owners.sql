-- Who chose an addon's settings (security review, issue 43): the user who created it and the one
-- who last updated it (-42: an admin API token, as on events). A delivery carries only the events
-- both may read, checked with their permissions at delivery time. Addons saved before this have
-- neither (NULL): they deliver only the events any signed-in user may read (a flag's events).
ALTER TABLE addons ADD COLUMN created_by_user_id integer, ADD COLUMN updated_by_user_id integer;
