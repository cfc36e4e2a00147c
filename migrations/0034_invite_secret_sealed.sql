-- Invite links are shown again to those who manage them (the Unleash API answers `secret` and
-- `url` in every list and GET): the secret is kept encrypted (AES-256-GCM, src/platform/secret-box.ts;
-- the key: SECRETS_KEY, else one kept in `settings`). Lookups still go by `secret_hash`.
-- Tokens made before this migration have only the hash: their secret cannot be recovered, so they
-- keep showing the display prefix and `url: null`.
ALTER TABLE public_signup_tokens ADD COLUMN secret_sealed text;
