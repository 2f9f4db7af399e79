import {
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "@/server/frame/config";
import { sealingKey } from "@/server/kit/secret-box";
import { headerSecretKey } from "@/server/tools";
import { webhookSecretKey } from "@/server/webhooks";

export type AdminKey = {
  key: string;
  source: "environment" | "file";
  file?: string;
  generated: boolean;
};

/**
 * The admin API key: ADMIN_API_KEY when set; else the one stored in the data directory, made
 * at first start. The key itself is never logged; where it is stored is.
 */
export async function resolveAdminKey(config: Config): Promise<AdminKey> {
  if (config.adminApiKey)
    return { key: config.adminApiKey, source: "environment", generated: false };

  const file = path.resolve(config.dataDir, "admin-api-key");
  const stored = await readKeyFile(file);
  if (stored) return { key: stored, source: "file", file, generated: false };

  await mkdir(path.dirname(file), { recursive: true });
  const key = randomBytes(32).toString("base64url");
  try {
    // `wx`: if another process made the file first, keep theirs rather than overwrite it.
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" });
    return { key, source: "file", file, generated: true };
  } catch (error) {
    const theirs =
      (error as NodeJS.ErrnoException).code === "EEXIST" ? await readKeyFile(file) : undefined;
    if (theirs) return { key: theirs, source: "file", file, generated: false };
    throw error;
  }
}

async function readKeyFile(file: string): Promise<string | undefined> {
  try {
    const key = (await readFile(file, "utf8")).trim();
    return key.length >= 16 ? key : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Constant-time comparison (hashing first makes the lengths equal). */
export function isAdminKey(presented: string, key: string): boolean {
  return timingSafeEqual(digest(presented), digest(key));
}

export function bearerToken(headers: Headers): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match?.[1];
}

export type AuthKeys = {
  callerHashKey: KeyObject;
  /** Names the admin key without revealing it: what a session opened with it is bound to. */
  adminKeyFingerprint: string;
  headerKey: Uint8Array;
  webhookKey: Uint8Array;
  /** Seals the API keys of agents' model endpoints. */
  endpointKey: Uint8Array;
  /** Seals the answers kept for Idempotency-Keys: they hold replies, and keys shown once. */
  answerKey: Uint8Array;
  adminKeyMatches(presented: string): boolean;
  /** Whether a bearer could be the admin key at all: only such a one is a guess at it. */
  couldBeAdminKey(presented: string): boolean;
};

/** Made once per process (the admin key does not change while it runs). */
export function authKeys(adminKey: string): AuthKeys {
  return {
    callerHashKey: callerHashKey(adminKey),
    adminKeyFingerprint: createHash("sha256")
      .update(`agent-service admin-key fingerprint v1\0${adminKey}`)
      .digest("base64url"),
    headerKey: headerSecretKey(adminKey),
    webhookKey: webhookSecretKey(adminKey),
    endpointKey: sealingKey(adminKey, "model endpoints v1"),
    answerKey: sealingKey(adminKey, "idempotent answers v1"),
    adminKeyMatches: (presented) => isAdminKey(presented, adminKey),
    couldBeAdminKey: (presented) =>
      presented.length === adminKey.length &&
      (!presented.startsWith("sk-") || adminKey.startsWith("sk-")),
  };
}

/**
 * The key callers' addresses are hashed with (`hashAddress` in server/callers), derived from the
 * admin key as the session key is. A KeyObject, made once: given raw bytes, every HMAC would
 * check and wrap them again.
 */
export function callerHashKey(adminKey: string): KeyObject {
  return createSecretKey(
    createHash("sha256").update(`agent-service caller v1\0${adminKey}`).digest(),
  );
}
