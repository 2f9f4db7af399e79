-- Model turns paused for people to approve the tool calls they asked for.
CREATE TABLE "paused_turns" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "paused_turns_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"aid" text NOT NULL,
	"via" text NOT NULL,
	"caller" text NOT NULL,
	"scope" text,
	"chat_id" text NOT NULL,
	"reservation_id" bigint,
	"run_id" bigint,
	"state" jsonb NOT NULL,
	"paused_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"resuming_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "tool_approvals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"turn_id" bigint NOT NULL,
	"aid" text NOT NULL,
	"call_id" text NOT NULL,
	"server" text NOT NULL,
	"tool" text NOT NULL,
	"arguments" jsonb,
	"requested_at" timestamp with time zone NOT NULL,
	"decision" text,
	"reason" text,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	CONSTRAINT "tool_approvals_decision" CHECK ("tool_approvals"."decision" IN ('approve', 'deny'))
);
--> statement-breakpoint
ALTER TABLE "paused_turns" ADD CONSTRAINT "paused_turns_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "paused_turns" ADD CONSTRAINT "paused_turns_run_id_autonomous_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."autonomous_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_approvals" ADD CONSTRAINT "tool_approvals_turn_id_paused_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."paused_turns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "paused_turns_expiry" ON "paused_turns" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "paused_turns_reservation" ON "paused_turns" USING btree ("reservation_id");--> statement-breakpoint
CREATE INDEX "paused_turns_run" ON "paused_turns" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "paused_turns_caller" ON "paused_turns" USING btree ("aid","caller");--> statement-breakpoint
CREATE INDEX "tool_approvals_pending" ON "tool_approvals" USING btree ("aid","requested_at") WHERE "tool_approvals"."decision" IS NULL;--> statement-breakpoint
CREATE INDEX "tool_approvals_turn" ON "tool_approvals" USING btree ("turn_id");