import { z } from "zod";

/** Every instant the API sends: ISO 8601 with its offset (the service always sends UTC, `Z`). */
export const isoDateTime = z.iso.datetime({ offset: true });
