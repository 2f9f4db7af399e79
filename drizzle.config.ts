import { defineConfig } from "drizzle-kit";

// Only `drizzle-kit generate` reads this: migrations are generated SQL, committed, and applied
// by the app at start-up (db/migrate.ts), so no database connection is configured here.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
  casing: "snake_case",
});
