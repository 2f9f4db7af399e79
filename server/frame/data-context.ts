import type { Db } from "@/db/client";
import type { Clock } from "@/server/kit/clock";

/**
 * The part of a request's context most domain verbs take. Domains declare their slice from this
 * and from the types of what they already depend on, never from the whole `Context`, which is
 * built above every domain (frame/context.ts).
 */
export type DataContext = { db: Db; clock: Clock };
