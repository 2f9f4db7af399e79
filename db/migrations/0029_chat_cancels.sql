-- Cancels of chats in flight, asked on any instance and read by the one answering.
CREATE TABLE "chat_cancels" (
	"request_id" text NOT NULL,
	"caller" text NOT NULL,
	"aid" text NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"done_at" timestamp with time zone,
	CONSTRAINT "chat_cancels_request_id_caller_pk" PRIMARY KEY("request_id","caller")
);
