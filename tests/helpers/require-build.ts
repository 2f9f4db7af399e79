import { existsSync } from "node:fs";
import path from "node:path";

/** The HTTP tests run the built server: say so plainly when there is no build. */
export default function requireBuild() {
  if (!existsSync(path.resolve(".next", "BUILD_ID"))) {
    throw new Error(
      "The HTTP tests need a production build: run `npm run build` first (`npm test` does).",
    );
  }
}
