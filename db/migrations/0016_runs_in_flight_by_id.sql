-- The in-flight runs indexed by id, not started_at: a run's end (id = $1 AND outcome = 'running')
-- then finds its row in one descent instead of walking every run in flight (db/schema.ts,
-- BENCHMARKS.md). The sweep still reads the runs in flight from this index.
DROP INDEX "autonomous_runs_in_flight";--> statement-breakpoint
CREATE INDEX "autonomous_runs_in_flight" ON "autonomous_runs" USING btree ("id") WHERE "autonomous_runs"."outcome" = 'running';