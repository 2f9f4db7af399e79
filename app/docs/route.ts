import { finish, methodNotAllowed } from "@/server/http";
import { requestIdOf } from "@/server/observability";

export const dynamic = "force-dynamic";

/**
 * Interactive API documentation: Swagger UI (swagger-ui-dist, served from this service, no
 * CDN) over /openapi.json. "Authorize" takes the admin key (or an agent key for chat), and
 * "Try it out" sends real requests to this service.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#docs", deepLinking: true, tryItOutEnabled: true });
</script>
</body>
</html>`;

export function GET(request: Request): Response {
  const started = performance.now();
  return finish(
    request,
    new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
    { requestId: requestIdOf(request.headers), started, params: {} },
  );
}

export const POST = methodNotAllowed(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
