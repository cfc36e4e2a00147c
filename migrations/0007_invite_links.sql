-- Invite links (public signup tokens) keep only the SHA-256 hash of their secret, as API tokens and
-- sessions do: the secret (and the link built from it) is shown once, when the token is created.
-- `display_prefix` is what listings show instead (the first 6 characters and an ellipsis).
--
-- The tables have been empty in every deployment so far; should a row exist anyway, it is
-- converted in place (its secret hashed, its prefix kept) rather than dropped, so a link already
-- handed out keeps working.
ALTER TABLE public_signup_tokens_user DROP CONSTRAINT public_signup_tokens_user_secret_fkey;

ALTER TABLE public_signup_tokens RENAME COLUMN secret TO secret_hash;
ALTER TABLE public_signup_tokens ADD COLUMN display_prefix text;
UPDATE public_signup_tokens
SET display_prefix = left(secret_hash, 6) || '…',
    secret_hash = encode(sha256(convert_to(secret_hash, 'UTF8')), 'hex');
ALTER TABLE public_signup_tokens ALTER COLUMN display_prefix SET NOT NULL;

ALTER TABLE public_signup_tokens_user RENAME COLUMN secret TO secret_hash;
UPDATE public_signup_tokens_user SET secret_hash = encode(sha256(convert_to(secret_hash, 'UTF8')), 'hex');
ALTER TABLE public_signup_tokens_user
  ADD CONSTRAINT public_signup_tokens_user_secret_hash_fkey
  FOREIGN KEY (secret_hash) REFERENCES public_signup_tokens (secret_hash) ON DELETE CASCADE;

-- Deleting a user removes their signup record (ON DELETE CASCADE): this keeps that cheap.
CREATE INDEX public_signup_tokens_user_user ON public_signup_tokens_user (user_id);
