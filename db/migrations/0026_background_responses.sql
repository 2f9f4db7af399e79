-- Background responses: their status and cancel flag, and their streams' events for clients that reconnect.
CREATE TABLE "response_events" (
	"response_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "response_events_response_id_seq_pk" PRIMARY KEY("response_id","seq")
);
--> statement-breakpoint
ALTER TABLE "responses" ADD COLUMN "status" text DEFAULT 'completed' NOT NULL;--> statement-breakpoint
ALTER TABLE "responses" ADD COLUMN "background" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "responses" ADD COLUMN "error" jsonb;--> statement-breakpoint
ALTER TABLE "responses" ADD COLUMN "cancel_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "responses" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "responses" ADD COLUMN "events_kept" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "response_events" ADD CONSTRAINT "response_events_response_id_responses_id_fk" FOREIGN KEY ("response_id") REFERENCES "public"."responses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "responses_in_progress" ON "responses" USING btree ("heartbeat_at") WHERE "responses"."status" = 'in_progress';--> statement-breakpoint
CREATE INDEX "responses_events_kept" ON "responses" USING btree ("heartbeat_at") WHERE "responses"."events_kept";--> statement-breakpoint
ALTER TABLE "responses" ADD CONSTRAINT "responses_status" CHECK ("responses"."status" IN ('in_progress', 'completed', 'failed', 'cancelled'));