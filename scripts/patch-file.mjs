import { readFileSync, writeFileSync } from "node:fs";

/**
 * Applies text patches to one file of an installed dependency, for the postinstall scripts
 * (patch-postgres.mjs, patch-trpc.mjs). Each patch is `{ name, marker, edits }`: a patch whose
 * marker is already in the file was applied before and is skipped; otherwise each edit's text
 * must be there exactly once, or the patch is left out and `onChanged(patch)` says so (a changed
 * upstream is reported, not patched). Writes the file once; returns the names applied.
 */
export function patchFile(target, patches, { onChanged }) {
  let source = readFileSync(target, "utf8");
  const applied = [];
  for (const patch of patches) {
    if (source.includes(patch.marker)) continue;
    if (!patch.edits.every(([from]) => source.split(from).length === 2)) {
      onChanged(patch);
      continue;
    }
    for (const [from, to] of patch.edits) source = source.replace(from, to);
    applied.push(patch.name);
  }
  if (applied.length > 0) writeFileSync(target, source);
  return applied;
}
