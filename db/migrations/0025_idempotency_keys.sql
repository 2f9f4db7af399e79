-- The answers of requests sent with an Idempotency-Key, replayed to a retry within a day.
CREATE TABLE "idempotency_keys" (
	"caller" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"claim" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"answered_at" timestamp with time zone,
	"status" integer,
	"headers" jsonb,
	"body" text,
	CONSTRAINT "idempotency_keys_caller_key_pk" PRIMARY KEY("caller","key")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_by_age" ON "idempotency_keys" USING btree ("claimed_at");