CREATE TABLE "autonomous_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "autonomous_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"aid" text NOT NULL,
	"trigger" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text NOT NULL,
	"reply" text,
	"error" text,
	"quota_month" date,
	CONSTRAINT "autonomous_runs_trigger" CHECK ("autonomous_runs"."trigger" IN ('schedule', 'manual')),
	CONSTRAINT "autonomous_runs_outcome" CHECK ("autonomous_runs"."outcome" IN ('running', 'succeeded', 'failed', 'skipped'))
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "autonomous_next_run_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "autonomous_runs" ADD CONSTRAINT "autonomous_runs_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "autonomous_runs_slot" ON "autonomous_runs" USING btree ("aid","due_at") WHERE "autonomous_runs"."trigger" = 'schedule';--> statement-breakpoint
CREATE INDEX "autonomous_runs_by_agent" ON "autonomous_runs" USING btree ("aid","id");--> statement-breakpoint
CREATE INDEX "autonomous_runs_in_flight" ON "autonomous_runs" USING btree ("started_at") WHERE "autonomous_runs"."outcome" = 'running';--> statement-breakpoint
CREATE INDEX "agents_autonomous_due" ON "agents" USING btree ("autonomous_next_run_at") WHERE "agents"."autonomous_enabled";--> statement-breakpoint
-- Agents already in autonomous mode start on the schedule at once.
UPDATE "agents" SET "autonomous_next_run_at" = now() WHERE "autonomous_enabled";
