ALTER TABLE "agents" ADD COLUMN "autonomous_cron" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "autonomous_timezone" text DEFAULT 'UTC' NOT NULL;