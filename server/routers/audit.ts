import type { z } from "zod";
import { auditCsv, listAudit, listAuditInputSchema, listAuditOutputSchema } from "@/server/audit";
import { router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, csvStreamResponse, json, problem, rest, wantsCsv } from "@/server/http";
import * as examples from "./examples-audit";

/** GET /audit: who changed what, newest first (admin), as JSON pages or one CSV file. */

export const auditRouter = router({
  list: viewerProcedure
    .meta(
      rest<z.output<typeof listAuditOutputSchema>>({
        method: "GET",
        path: "/audit",
        operationId: "listAudit",
        summary:
          "The audit log: each change an admin made (agents and their limits and counters, agent keys, webhooks and their secrets, prices, deployments, admins and their keys) and each sign-in, newest first, filtered by actor, target, action and time.",
        description:
          "Each entry is written in the change's own transaction: a change is recorded, or did not happen; a refused write adds none. `before` and `after` are the thing as the API shows it, secrets never (only that they changed). Kept AUDIT_RETENTION_DAYS days. `next_cursor` pages to older entries.",
        handle: async ({ request, call, input }) => {
          if (!wantsCsv(request)) return json(await call(input));
          // Every entry the filters match, a page at a time; the first read before answering,
          // so a bad filter is still a 400.
          const { limit: _limit, cursor: _cursor, ...filters } = input;
          const page = (cursor?: string) =>
            call({ ...filters, limit: "500", ...(cursor ? { cursor } : {}) });
          return csvStreamResponse(auditCsv(await page(), page), "audit.csv");
        },
        answers: {
          200: {
            description:
              "One page of entries; with Accept: text/csv, every entry the filters match as CSV (limit and cursor are not read).",
            examples: examples.list,
            content: { "text/csv": { schema: { type: "string" } } },
          },
        },
        refusals: {
          400: problem("A bad filter, limit or cursor; the problem names it."),
          ...adminErrors,
        },
      }),
    )
    .input(listAuditInputSchema)
    .output(listAuditOutputSchema)
    .query(({ ctx, input }) => listAudit(ctx, input)),
});
