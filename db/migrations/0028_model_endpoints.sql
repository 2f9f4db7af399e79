-- Agents' own model endpoints, their circuits shared by every instance, and which answered.
CREATE TABLE "model_circuits" (
	"base_url" text NOT NULL,
	"model" text NOT NULL,
	"failures" integer NOT NULL,
	"last_failure_at" timestamp with time zone NOT NULL,
	"open_until" timestamp with time zone,
	"probe_until" timestamp with time zone,
	CONSTRAINT "model_circuits_base_url_model_pk" PRIMARY KEY("base_url","model")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "model_endpoints" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "endpoint" text;