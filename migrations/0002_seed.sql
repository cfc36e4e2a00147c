-- What a fresh install has: the default project, two environments, the built-in flag types,
-- strategies, context fields, roles and the "simple" tag type.

INSERT INTO environments (name, type, sort_order) VALUES
  ('development', 'development', 2),
  ('production', 'production', 3);

INSERT INTO projects (id, name, description) VALUES ('default', 'Default', 'Default project');
INSERT INTO project_environments (project_id, environment_name) VALUES
  ('default', 'development'),
  ('default', 'production');

INSERT INTO feature_types (id, name, description, lifetime_days) VALUES
  ('release', 'Release', 'Release feature flags are used to release new features.', 40),
  ('experiment', 'Experiment', 'Experiment feature flags are used to test and verify multiple different versions of a feature.', 40),
  ('operational', 'Operational', 'Operational feature flags are used to control aspects of a rollout.', 7),
  ('kill-switch', 'Kill switch', 'Kill switch feature flags are used to quickly turn on or off critical functionality in your system.', NULL),
  ('permission', 'Permission', 'Permission feature flags are used to control permissions in your system.', NULL);

INSERT INTO strategies (name, title, description, parameters, built_in, deprecated, sort_order) VALUES
  ('default', 'Standard', 'This strategy turns on / off for your entire userbase.', '[]', true, false, 1),
  ('flexibleRollout', 'Gradual rollout', 'Roll out to a percentage of your userbase, and ensure that the experience is the same for the user on each visit.',
   '[{"name":"rollout","type":"percentage","description":"","required":false},{"name":"stickiness","type":"string","description":"Used define stickiness. Possible values: default, userId, sessionId, random","required":true},{"name":"groupId","type":"string","description":"Used to define a activation groups, which allows you to correlate across feature flags.","required":true}]',
   true, false, 0),
  ('userWithId', 'UserIDs', 'Enable the feature for a specific set of userIds.',
   '[{"name":"userIds","type":"list","description":"","required":false}]', true, true, 2),
  ('gradualRolloutRandom', 'Randomly', 'Randomly activate the feature flag. No stickiness.',
   '[{"name":"percentage","type":"percentage","description":"","required":false}]', true, true, 3),
  ('gradualRolloutSessionId', 'Sessions', 'Gradually activate feature flag. Stickiness based on session id.',
   '[{"name":"percentage","type":"percentage","description":"","required":false},{"name":"groupId","type":"string","description":"Used to define a activation groups, which allows you to correlate across feature flags.","required":true}]', true, true, 4),
  ('gradualRolloutUserId', 'Users', 'Gradually activate feature flag for logged in users. Stickiness based on user id.',
   '[{"name":"percentage","type":"percentage","description":"","required":false},{"name":"groupId","type":"string","description":"Used to define a activation groups, which allows you to correlate across feature flags.","required":true}]', true, true, 5),
  ('remoteAddress', 'IPs', 'Enable the feature for a specific set of IP addresses.',
   '[{"name":"IPs","type":"list","description":"List of IPs to enable the feature flag for.","required":true}]', true, false, 6),
  ('applicationHostname', 'Hosts', 'Enable the feature for a specific set of hostnames.',
   '[{"name":"hostNames","type":"list","description":"List of hostnames to enable the feature flag for.","required":false}]', true, false, 7);

INSERT INTO context_fields (name, description, sort_order, stickiness, built_in) VALUES
  ('environment', 'Allows you to constrain on application environment', 0, false, true),
  ('userId', 'Allows you to constrain on userId', 1, true, true),
  ('appName', 'Allows you to constrain on application name', 2, false, true),
  ('currentTime', 'Allows you to constrain on date values', 3, false, true),
  ('sessionId', 'Allows you to constrain on sessionId', 4, true, true),
  ('remoteAddress', 'Allows you to constrain on remote address', 5, false, true);

INSERT INTO roles (id, name, type, description) VALUES
  (1, 'Admin', 'root', 'Users with the root admin role have superuser access to Unleash and can perform any operation within the Unleash platform.'),
  (2, 'Editor', 'root', 'Users with the root editor role have access to most features in Unleash, but can not manage users and roles in the root scope.'),
  (3, 'Viewer', 'root', 'Users with the root viewer role can only read root resources in Unleash.'),
  (4, 'Owner', 'project', 'Users with the project owner role have full control over the project.'),
  (5, 'Member', 'project', 'Users with the project member role are allowed to view, create, and update feature flags within a project.');
SELECT setval(pg_get_serial_sequence('roles', 'id'), 5);

INSERT INTO role_permissions (role_id, permission) VALUES (1, 'ADMIN');

INSERT INTO tag_types (name, description, icon) VALUES
  ('simple', 'Used to simplify filtering of features', '#');
