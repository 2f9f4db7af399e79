-- A session opened with the admin key is bound to that key (server/auth/session.ts): one opened
-- before this has no fingerprint, so it ends and its admin signs in again.
ALTER TABLE "sessions" ADD COLUMN "admin_key_fingerprint" text;