import { readFile } from "node:fs/promises";
import path from "node:path";
import { notFoundRoute } from "@/server/rest";

export const dynamic = "force-dynamic";

/** Swagger UI's two files, from the installed swagger-ui-dist package (never a CDN). */
const ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

const missing = notFoundRoute().GET;

export async function GET(request: Request, route: { params: Promise<{ asset: string }> }) {
  const { asset } = await route.params;
  const type = ASSETS[asset];
  if (!type) return missing(request);
  const file = path.join(process.cwd(), "node_modules", "swagger-ui-dist", asset);
  return new Response(await readFile(file), {
    headers: { "content-type": type, "cache-control": "public, max-age=3600" },
  });
}
