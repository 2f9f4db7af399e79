ALTER TABLE "agent_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD COLUMN "rate_limit_rpm" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_rate_limit_rpm_range" CHECK ("agent_keys"."rate_limit_rpm" BETWEEN 1 AND 1000000);