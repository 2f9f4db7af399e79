-- The responses a caller of POST /v1/responses keeps, and the request log's way in for them.
CREATE TABLE "responses" (
	"id" text PRIMARY KEY NOT NULL,
	"aid" text NOT NULL,
	"caller" text NOT NULL,
	"previous_response_id" text,
	"instructions" text,
	"input" jsonb NOT NULL,
	"output_text" text NOT NULL,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"metadata" jsonb NOT NULL,
	"settings" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_log" DROP CONSTRAINT "request_log_via";--> statement-breakpoint
ALTER TABLE "responses" ADD CONSTRAINT "responses_aid_agents_aid_fk" FOREIGN KEY ("aid") REFERENCES "public"."agents"("aid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "responses_by_agent" ON "responses" USING btree ("aid","caller","created_at");--> statement-breakpoint
-- NOT VALID, as in 0022: the rows there passed the narrower check.
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_via" CHECK ("request_log"."via" IN ('chat', 'completions', 'mcp', 'responses')) NOT VALID;