/**
 * What `npm start` and `npm run dev` run: the Node.js version checked against package.json's
 * `engines` first, in plain JavaScript that any Node.js loads, then the server entry
 * (server/instance/main.ts), which only Node.js 22.18 and later can load at all.
 */
import { checkNodeVersion } from "./node-version.mjs";

checkNodeVersion();
await import("./main.ts");
