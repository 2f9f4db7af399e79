-- Dashboard sign-in with an OpenID provider: attempts under way, and sessions opened with it.
CREATE TABLE "oidc_attempts" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"code_verifier" text NOT NULL,
	"nonce" text NOT NULL,
	"next" text,
	"binding_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_via";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "role" text;--> statement-breakpoint
CREATE INDEX "oidc_attempts_expiry" ON "oidc_attempts" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_via" CHECK ("sessions"."via" IN ('api_key', 'personal_key', 'wallet', 'oidc'));