-- Custom roles (src/features/roles): role names are unique in any letter case, since users,
-- service accounts and scripts give a root role by name ("editor" finds "Editor"). The built-in
-- names already differ in more than case; `roles.name` stays UNIQUE as it was.
CREATE UNIQUE INDEX roles_name_lower_unique ON roles (lower(name));
