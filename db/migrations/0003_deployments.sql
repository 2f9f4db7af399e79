CREATE TABLE "deployment_status_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "deployment_status_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"deployment_id" integer NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"signer_address" text NOT NULL,
	"nonce" text NOT NULL,
	"deployment_details" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" serial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"user_address" text NOT NULL,
	"worker_name" text,
	"worker_uuid" text,
	"proposal_hash" text,
	"proposal_id" integer,
	"deployment_details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"proposal" jsonb NOT NULL,
	"status" text DEFAULT 'init' NOT NULL,
	"worker_address" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deployments_requestId_unique" UNIQUE("request_id"),
	CONSTRAINT "deployments_status" CHECK ("deployments"."status" IN ('init', 'pick_up', 'deploying', 'deployed', 'generated_proof', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "siwe_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "deployment_status_history" ADD CONSTRAINT "deployment_status_history_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deployment_history_by_deployment" ON "deployment_status_history" USING btree ("deployment_id","id");--> statement-breakpoint
CREATE INDEX "deployments_by_owner" ON "deployments" USING btree ("user_address","id");--> statement-breakpoint
CREATE INDEX "deployments_by_status" ON "deployments" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "siwe_nonces_expiry" ON "siwe_nonces" USING btree ("expires_at");