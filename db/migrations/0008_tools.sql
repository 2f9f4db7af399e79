ALTER TABLE "agents" ADD COLUMN "mcp_servers" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "max_tool_steps" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "autonomous_runs" ADD COLUMN "tool_calls" jsonb;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "tool_calls" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_max_tool_steps_range" CHECK ("agents"."max_tool_steps" BETWEEN 0 AND 20);