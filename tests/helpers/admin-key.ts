/**
 * The admin key tRPC callers in tests are made with, and the HTTP tests' servers are started
 * with. A module of its own, importing nothing: the helpers that start servers (server.ts) and
 * the browser tests need only the key, and importing it from context.ts loaded the whole
 * service with it (3.5 s of import for each HTTP, reliability and browser test file here).
 */
export const TEST_ADMIN_KEY = "test-admin-key-0123456789abcdef";
