-- The tasks of agents' A2A servers, and the request log's way in for them.
CREATE TABLE "a2a_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"aid" text NOT NULL,
	"caller" text NOT NULL,
	"state" text NOT NULL,
	"task" jsonb NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_log" DROP CONSTRAINT "request_log_via";--> statement-breakpoint
ALTER TABLE "a2a_tasks" ADD CONSTRAINT "a2a_tasks_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "a2a_tasks_by_agent" ON "a2a_tasks" USING btree ("aid","caller");--> statement-breakpoint
-- NOT VALID, as in 0022: the rows there passed the narrower check.
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_via" CHECK ("request_log"."via" IN ('chat', 'completions', 'mcp', 'responses', 'a2a')) NOT VALID;