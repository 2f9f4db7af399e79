ALTER TABLE "autonomous_runs" ADD COLUMN "input_tokens" integer;--> statement-breakpoint
ALTER TABLE "autonomous_runs" ADD COLUMN "output_tokens" integer;--> statement-breakpoint
ALTER TABLE "autonomous_runs" ADD COLUMN "tokens_estimated" boolean;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "input_tokens" integer;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "output_tokens" integer;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "tokens_estimated" boolean;