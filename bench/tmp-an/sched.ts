import { createDatabase } from "../../db/client";
import { createThrowawayDatabase } from "../../tests/helpers/throwaway-postgres";
import { measureSchedulerThroughput } from "../scheduler";

const database = await createThrowawayDatabase(process.env.TEST_DATABASE_URL as string, "sched");
const migrated = createDatabase({ kind: "postgres", url: database.url });
await migrated.migrate();
await migrated.close();
try {
  for (const instances of [1, 1])
    console.log(
      JSON.stringify(await measureSchedulerThroughput(database.url, { agents: 10000, instances })),
    );
} finally {
  await database.drop();
}
