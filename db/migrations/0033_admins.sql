-- Admins as people with roles, their own API keys, and sessions opened with those keys.
CREATE TABLE "admin_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"admin_id" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "admin_keys_role" CHECK ("admin_keys"."role" IN ('viewer', 'operator', 'owner'))
);
--> statement-breakpoint
CREATE TABLE "admins" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"wallet" text,
	"email" text,
	"role" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "admins_wallet_unique" UNIQUE("wallet"),
	CONSTRAINT "admins_email_unique" UNIQUE("email"),
	CONSTRAINT "admins_role" CHECK ("admins"."role" IN ('viewer', 'operator', 'owner')),
	CONSTRAINT "admins_known_by" CHECK ("admins"."wallet" IS NOT NULL OR "admins"."email" IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_via";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "admin_key_id" text;--> statement-breakpoint
ALTER TABLE "admin_keys" ADD CONSTRAINT "admin_keys_admin_id_admins_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."admins"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_keys_admin" ON "admin_keys" USING btree ("admin_id");--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_admin_key_id_admin_keys_id_fk" FOREIGN KEY ("admin_key_id") REFERENCES "public"."admin_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_admin_key" ON "sessions" USING btree ("admin_key_id");--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_via" CHECK ("sessions"."via" IN ('api_key', 'personal_key', 'wallet'));