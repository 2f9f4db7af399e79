-- Streamed chats whose client left, recorded for it to resume from any instance.
CREATE TABLE "chat_stream_events" (
	"caller" text NOT NULL,
	"request_id" text NOT NULL,
	"seq" integer NOT NULL,
	"frame" text NOT NULL,
	CONSTRAINT "chat_stream_events_request_id_caller_seq_pk" PRIMARY KEY("request_id","caller","seq")
);
--> statement-breakpoint
CREATE TABLE "chat_streams" (
	"caller" text NOT NULL,
	"request_id" text NOT NULL,
	"aid" text NOT NULL,
	"status" text NOT NULL,
	"grace_until" timestamp with time zone NOT NULL,
	"resumed_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "chat_streams_request_id_caller_pk" PRIMARY KEY("request_id","caller")
);
--> statement-breakpoint
ALTER TABLE "chat_stream_events" ADD CONSTRAINT "chat_stream_events_stream_fk" FOREIGN KEY ("request_id","caller") REFERENCES "public"."chat_streams"("request_id","caller") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_streams_ended" ON "chat_streams" USING btree ("ended_at");