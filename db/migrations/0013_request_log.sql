CREATE TABLE "request_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"started_at" timestamp with time zone NOT NULL,
	"via" text NOT NULL,
	"aid" text NOT NULL,
	"caller" text NOT NULL,
	"chat_id" text NOT NULL,
	"status" integer NOT NULL,
	"code" text,
	"latency_ms" integer NOT NULL,
	"input_tokens" integer,
	"output_tokens" integer,
	"cost" numeric,
	"request_id" text,
	CONSTRAINT "request_log_via" CHECK ("request_log"."via" IN ('chat', 'completions'))
);
--> statement-breakpoint
CREATE INDEX "request_log_recent" ON "request_log" USING btree ("started_at","id");--> statement-breakpoint
CREATE INDEX "request_log_by_agent" ON "request_log" USING btree ("aid","started_at","id");