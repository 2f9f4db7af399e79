-- SSO sign-ins under way are bounded per client: each attempt keeps its client's hash.
ALTER TABLE "oidc_attempts" ADD COLUMN "client" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "oidc_attempts_client" ON "oidc_attempts" USING btree ("client","expires_at");