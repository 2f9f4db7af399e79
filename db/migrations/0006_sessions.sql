CREATE TABLE "auth_failures" (
	"client" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"last_failed_at" timestamp with time zone NOT NULL,
	"blocked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "rate_windows" (
	"scope" text NOT NULL,
	"client" text NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_windows_scope_client_pk" PRIMARY KEY("scope","client")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"via" text NOT NULL,
	"address" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sessions_via" CHECK ("sessions"."via" IN ('api_key', 'wallet'))
);
--> statement-breakpoint
CREATE INDEX "auth_failures_age" ON "auth_failures" USING btree ("last_failed_at");--> statement-breakpoint
CREATE INDEX "rate_windows_age" ON "rate_windows" USING btree ("window_started_at");--> statement-breakpoint
CREATE INDEX "sessions_expiry" ON "sessions" USING btree ("expires_at");