import { readFileSync } from "node:fs";
import path from "node:path";

/** The installed version of a package. */
export function versionOf(name: string): string {
  const file = path.resolve(import.meta.dirname, "../../node_modules", name, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

/**
 * The message of an assertion on a library's internals, for when an upgrade breaks what a
 * module of the service relies on: it names the library, its version and the module.
 */
export function relyingOn(name: string, module: string, what: string): string {
  return `${name} ${versionOf(name)}: ${what} no longer holds, and ${module} relies on it; read that module before upgrading.`;
}
