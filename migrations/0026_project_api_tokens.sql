-- Project API tokens (/api/admin/projects/:p/api-tokens): as in Unleash, the project Owner and
-- Member roles read, create and delete the tokens of their project.
INSERT INTO role_permissions (role_id, permission, environment, project)
SELECT r, p, '', '' FROM unnest(ARRAY[4, 5]) AS r, unnest(ARRAY[
  'READ_PROJECT_API_TOKEN', 'CREATE_PROJECT_API_TOKEN', 'DELETE_PROJECT_API_TOKEN'
]) AS p;
