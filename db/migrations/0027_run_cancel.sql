-- A run's cancel, asked on any instance and read by the one running it.
ALTER TABLE "autonomous_runs" ADD COLUMN "cancel_requested_at" timestamp with time zone;