import { listAudit, listAuditInputSchema, listAuditOutputSchema } from "@/server/audit";
import { adminProcedure, router } from "@/server/frame/trpc";
import { adminErrors, problem, rest } from "@/server/http";
import * as examples from "./examples-audit";

/** GET /audit: who changed what, newest first (admin). */

export const auditRouter = router({
  list: adminProcedure
    .meta(
      rest({
        method: "GET",
        path: "/audit",
        operationId: "listAudit",
        summary:
          "The audit log: each change an admin made (agents and their limits and counters, agent keys, webhooks and their secrets, prices), newest first, filtered by actor, target, action and time.",
        description:
          "Each entry is written in the change's own transaction: a change is recorded, or did not happen; a refused write adds none. `before` and `after` are the thing as the API shows it, secrets never (only that they changed). Kept AUDIT_RETENTION_DAYS days. `next_cursor` pages to older entries.",
        answers: { 200: { description: "One page of entries.", examples: examples.list } },
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
