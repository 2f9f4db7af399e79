-- A chat may come in by an agent's MCP tool. NOT VALID: the rows there already passed the
-- narrower check, and validating would read the whole request log under the migration's lock.
ALTER TABLE "request_log" DROP CONSTRAINT "request_log_via";--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_via" CHECK ("request_log"."via" IN ('chat', 'completions', 'mcp')) NOT VALID;
