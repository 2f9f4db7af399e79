ALTER TABLE "chat_reservations" DROP CONSTRAINT "chat_reservations_aid_agents_aid_fk";
