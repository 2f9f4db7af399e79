import { json } from "@/server/http";
import { buildOpenApiDocument } from "@/server/openapi";
import { getConfig } from "@/server/services";

export const dynamic = "force-dynamic";

export function GET() {
  return json(buildOpenApiDocument(getConfig().publicUrl));
}
