/**
 * Runs after `npm install`/`npm ci`, beside patch-postgres.mjs: one change to @trpc/server 11.x,
 * idempotent, checked against the text it replaces (a changed upstream is reported, not patched).
 *
 * Native object spreads in a procedure call's middleware chain: tRPC's published build compiles
 * each `{ ...opts, … }` of its source to a helper (`_objectSpread2`) that copies property by
 * property and leaves the copies in V8's slow dictionary form, on every chat's call. The copies
 * hold the same properties in the same order as the helper's: what the source says.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { patchFile } from "./patch-file.mjs";

const MARKER = "agent-service: native spreads";

/** The edits, for the helper as the build names it (`_objectSpread2` or a module's member). */
function edits(helper) {
  const spread = (inner) => `${helper}(${helper}({}, ${inner})`;
  return [
    [
      `${spread("opts.input")}, parsedInput)`,
      `{ ...opts.input, ...parsedInput } /* ${MARKER} (scripts/patch-trpc.mjs) */`,
    ],
    [`return ${spread("result")}, {}, { data });`, "return { ...result, data };"],
    [
      `return await middleware(${spread("opts")}, {}, {\n\t\t\tmeta: _def.meta,`,
      "return await middleware({\n\t\t\t...opts,\n\t\t\tmeta: _def.meta,",
    ],
    [
      `return callRecursive(index + 1, _def, ${spread("opts")}, {}, {\n\t\t\t\t\tctx: (nextOpts === null || nextOpts === void 0 ? void 0 : nextOpts.ctx) ? ${spread("opts.ctx")}, nextOpts.ctx) : opts.ctx,`,
      "return callRecursive(index + 1, _def, {\n\t\t\t\t\t...opts,\n\t\t\t\t\tctx: (nextOpts === null || nextOpts === void 0 ? void 0 : nextOpts.ctx) ? { ...opts.ctx, ...nextOpts.ctx } : opts.ctx,",
    ],
    [
      ": opts.getRawInput\n\t\t\t\t}));\n\t\t\t}\n\t\t}));",
      ": opts.getRawInput\n\t\t\t\t});\n\t\t\t}\n\t\t});",
    ],
  ];
}

const dist = path.resolve(import.meta.dirname, "..", "node_modules", "@trpc", "server", "dist");
const files = existsSync(dist)
  ? readdirSync(dist).filter((name) => /^initTRPC-.*\.(mjs|cjs)$/.test(name))
  : [];
if (existsSync(dist) && files.length === 0)
  console.warn("patch-trpc: @trpc/server has no initTRPC chunk; the spreads were not patched.");
for (const file of files) {
  const helper = file.endsWith(".cjs") ? "require_getErrorShape._objectSpread2" : "_objectSpread2";
  const patch = { name: "native spreads", marker: MARKER, edits: edits(helper) };
  const applied = patchFile(path.join(dist, file), [patch], {
    onChanged: () =>
      console.warn(
        `patch-trpc: ${file} of @trpc/server has changed upstream; its spreads were not patched (check whether the build still compiles them to a helper).`,
      ),
  });
  if (applied.length > 0)
    console.info(`patch-trpc: native spreads in the middleware chain in ${file} of @trpc/server.`);
}
