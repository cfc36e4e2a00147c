-- One-time links to set a password: for a user created without one (the invite link of user
-- administration) and for an admin-triggered reset. Only a SHA-256 hash of the secret is kept.
CREATE TABLE reset_tokens (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reset_tokens_user ON reset_tokens (user_id);
