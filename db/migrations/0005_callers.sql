-- Caller keys, thread owners, per-caller rate limits and chat reservations (issue 12).
CREATE TABLE "agent_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"aid" text NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "chat_rate_limits" (
	"aid" text NOT NULL,
	"caller" text NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "chat_rate_limits_aid_caller_pk" PRIMARY KEY("aid","caller")
);
--> statement-breakpoint
CREATE TABLE "chat_reservations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chat_reservations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"aid" text NOT NULL,
	"day" date NOT NULL,
	"month" date NOT NULL,
	"reserved_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "chat_access" text DEFAULT 'public' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "rate_limit_rpm" integer;--> statement-breakpoint
-- Agents that existed before rate limits get CHAT_RATE_LIMIT_RPM's default; change it per agent.
UPDATE "agents" SET "rate_limit_rpm" = 60;--> statement-breakpoint
-- Threads get owners. Before this, every caller wrote to the same threads, so no owner can be
-- told: they become `shared` (admins still read them; no caller reaches them again), and the
-- autonomous runs' thread becomes the agent's own.
ALTER TABLE "chat_messages" DROP CONSTRAINT "chat_messages_aid_chat_id_chat_threads_aid_chat_id_fk";--> statement-breakpoint
DROP INDEX "chat_messages_thread";--> statement-breakpoint
DROP INDEX "chat_threads_recent";--> statement-breakpoint
ALTER TABLE "chat_threads" DROP CONSTRAINT "chat_threads_aid_chat_id_pk";--> statement-breakpoint
ALTER TABLE "chat_threads" ADD COLUMN "caller" text DEFAULT 'shared' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "caller" text DEFAULT 'shared' NOT NULL;--> statement-breakpoint
UPDATE "chat_threads" SET "caller" = 'agent' WHERE "chat_id" = 'autonomous';--> statement-breakpoint
UPDATE "chat_messages" SET "caller" = 'agent' WHERE "chat_id" = 'autonomous';--> statement-breakpoint
ALTER TABLE "chat_threads" ALTER COLUMN "caller" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "chat_messages" ALTER COLUMN "caller" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "chat_threads" ADD CONSTRAINT "chat_threads_aid_caller_chat_id_pk" PRIMARY KEY("aid","caller","chat_id");--> statement-breakpoint
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_rate_limits" ADD CONSTRAINT "chat_rate_limits_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_reservations" ADD CONSTRAINT "chat_reservations_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_keys_by_agent" ON "agent_keys" USING btree ("aid","created_at");--> statement-breakpoint
CREATE INDEX "chat_rate_limits_age" ON "chat_rate_limits" USING btree ("window_started_at");--> statement-breakpoint
CREATE INDEX "chat_reservations_age" ON "chat_reservations" USING btree ("reserved_at");--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_aid_caller_chat_id_chat_threads_aid_caller_chat_id_fk" FOREIGN KEY ("aid","caller","chat_id") REFERENCES "public"."chat_threads"("aid","caller","chat_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_thread" ON "chat_messages" USING btree ("aid","caller","chat_id","id");--> statement-breakpoint
CREATE INDEX "chat_threads_recent" ON "chat_threads" USING btree ("aid","last_message_at" DESC NULLS LAST,"caller","chat_id");--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_chat_access" CHECK ("agents"."chat_access" IN ('public', 'key'));--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_rate_limit_rpm_range" CHECK ("agents"."rate_limit_rpm" BETWEEN 1 AND 1000000);
