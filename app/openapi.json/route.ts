import { buildOpenApiDocument } from "@/server/http/openapi";
import { json } from "@/server/http/rest";
import { getConfig } from "@/server/services";

export const dynamic = "force-dynamic";

export function GET() {
  return json(buildOpenApiDocument(getConfig().publicUrl));
}
