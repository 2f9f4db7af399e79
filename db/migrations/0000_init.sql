CREATE TABLE "agent_quotas" (
	"aid" text PRIMARY KEY NOT NULL,
	"message_count_total" integer DEFAULT 0 NOT NULL,
	"message_limit_total" integer,
	"message_count_monthly" integer DEFAULT 0 NOT NULL,
	"message_limit_monthly" integer,
	"message_month" date NOT NULL,
	"message_count_daily" integer DEFAULT 0 NOT NULL,
	"message_limit_daily" integer,
	"message_day" date NOT NULL,
	"autonomous_count_total" integer DEFAULT 0 NOT NULL,
	"autonomous_limit_total" integer,
	"autonomous_count_monthly" integer DEFAULT 0 NOT NULL,
	"autonomous_limit_monthly" integer,
	"autonomous_month" date NOT NULL,
	"last_message_at" timestamp with time zone,
	"last_autonomous_at" timestamp with time zone,
	CONSTRAINT "agent_quotas_counts_not_negative" CHECK ("agent_quotas"."message_count_total" >= 0 AND "agent_quotas"."message_count_monthly" >= 0 AND "agent_quotas"."message_count_daily" >= 0 AND "agent_quotas"."autonomous_count_total" >= 0 AND "agent_quotas"."autonomous_count_monthly" >= 0),
	CONSTRAINT "agent_quotas_limits_not_negative" CHECK ("agent_quotas"."message_limit_total" >= 0 AND "agent_quotas"."message_limit_monthly" >= 0 AND "agent_quotas"."message_limit_daily" >= 0 AND "agent_quotas"."autonomous_limit_total" >= 0 AND "agent_quotas"."autonomous_limit_monthly" >= 0)
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"aid" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"model" text,
	"prompt" text,
	"temperature" double precision,
	"autonomous_enabled" boolean DEFAULT false NOT NULL,
	"autonomous_minutes" integer DEFAULT 60 NOT NULL,
	"autonomous_prompt" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "agents_temperature_range" CHECK ("agents"."temperature" BETWEEN 0 AND 2),
	CONSTRAINT "agents_autonomous_minutes_range" CHECK ("agents"."autonomous_minutes" BETWEEN 1 AND 525600),
	CONSTRAINT "agents_autonomous_prompt_when_enabled" CHECK (NOT "agents"."autonomous_enabled" OR "agents"."autonomous_prompt" IS NOT NULL)
);
--> statement-breakpoint
ALTER TABLE "agent_quotas" ADD CONSTRAINT "agent_quotas_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;