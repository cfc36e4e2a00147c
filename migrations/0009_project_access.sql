-- Project Owners manage who has which role in their project (as in Unleash).
INSERT INTO role_permissions (role_id, permission, environment, project) VALUES
  (4, 'PROJECT_USER_ACCESS_WRITE', '', ''),
  (4, 'PROJECT_GROUP_ACCESS_WRITE', '', '');
