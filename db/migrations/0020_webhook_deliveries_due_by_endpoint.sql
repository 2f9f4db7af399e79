-- The pending deliveries indexed by endpoint and due time: a claim takes each endpoint's first
-- due deliveries, up to its bound on attempts in flight, and counts those in flight, with a few
-- index probes per endpoint instead of walking every due delivery (a hanging endpoint's backlog).
DROP INDEX "webhook_deliveries_due";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_by_endpoint" ON "webhook_deliveries" USING btree ("endpoint_id","next_attempt_at","id") WHERE "webhook_deliveries"."status" = 'pending';