/**
 * Requests made from an OpenAPI document alone: for every operation, a baseline request (path
 * parameters from `seeds`, the required query parameters and body fields from the document's
 * examples, defaults or types) and one request per edge value put in one place of it (a path
 * parameter, a query parameter, or a field of the JSON body at any depth). A new operation, a
 * new parameter or a new field is covered without a change here.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
};

type Parameter = { name: string; in: string; required?: boolean; schema?: Schema };

export type Operation = {
  method: string;
  template: string;
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  requestBody?: {
    content?: Record<string, { schema?: Schema; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, unknown>;
};

export type OpenApiDocument = {
  paths: Record<string, Record<string, Omit<Operation, "method" | "template">>>;
  components?: { schemas?: Record<string, Schema> };
};

/** One request to send: `target` is the path with its query, `body` the JSON text if any. */
export type Case = {
  operation: Operation;
  method: string;
  target: string;
  body?: string;
  /** The body's Content-Type: application/json unless said. */
  contentType?: string;
  /** What this request changed from the baseline, for a report. */
  varied: string;
  /** Whether an edge value is in a parameter or a body field (not only the body's form). */
  edge: boolean;
  /** False when an empty path parameter makes the path another one: the answer is not the operation's. */
  ofOperation: boolean;
};

/** An edge value: how it is spelled in a URL (percent-encoded) and in JSON (a raw token). */
type Edge = { label: string; url: string; json: string };

const LONG = 5000;

/** Numbers past int4 and int8, negative, fractional, and past a double (1e309 is Infinity). */
const NUMBER_EDGES: Edge[] = [
  "2147483648",
  "-2147483649",
  "9223372036854775808",
  "-9223372036854775809",
  "-1",
  "1.5",
  "1e309",
].map((n) => ({ label: n, url: n, json: n }));

/**
 * NUL and lone surrogates: in JSON as escapes, which JSON.parse turns into the real characters;
 * in a URL as the bytes they would be (a lone surrogate has no UTF-8, so its WTF-8 bytes).
 */
const STRING_EDGES: Edge[] = [
  { label: "empty", url: "", json: '""' },
  { label: "NUL", url: "%00", json: '"\\u0000"' },
  { label: "a NUL b", url: "a%00b", json: '"a\\u0000b"' },
  { label: "lone \\uD800", url: "%ED%A0%80", json: '"\\ud800"' },
  { label: "lone \\uDC00", url: "%ED%B0%80", json: '"\\udc00"' },
  { label: `x × ${LONG}`, url: "x".repeat(LONG), json: JSON.stringify("x".repeat(30_000)) },
];

/** Years 0000, 9999 and 10000 (which only the expanded ISO form can spell). */
const DATE_EDGES: Edge[] = [
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "10000-01-01T00:00:00Z",
  "+010000-01-01T00:00:00Z",
].map((d) => ({ label: d, url: encodeURIComponent(d), json: JSON.stringify(d) }));

const NULL_EDGE: Edge = { label: "null", url: "null", json: "null" };

/** The edges for a place of `schema` whose usual value is `current`, also that value spoilt. */
function edgesFor(schema: Schema, current: unknown): Edge[] {
  const dated = schema.format === "date-time" || schema.format === "date";
  // A well-formed value (a URL, a name) with NUL or a lone surrogate at its end.
  const spoilt: Edge[] =
    typeof current === "string" && current !== ""
      ? [
          ["NUL", "%00", "\u0000"],
          ["lone \\uD800", "%ED%A0%80", "\ud800"],
        ].map(([label, url, char]) => ({
          label: `${JSON.stringify(current).slice(0, 40)} + ${label}`,
          url: `${encodeURIComponent(current)}${url}`,
          json: JSON.stringify(`${current}${char}`),
        }))
      : [];
  return [...NUMBER_EDGES, ...STRING_EDGES, ...spoilt, ...(dated ? DATE_EDGES : []), NULL_EDGE];
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(item))
      operations.push({ ...operation, method: method.toUpperCase(), template });
  return operations;
}

/** Every request for one operation: the baseline first, then each edge value in each place. */
export function casesOf(
  doc: OpenApiDocument,
  operation: Operation,
  seeds: (operation: Operation, name: string) => string | undefined,
): Case[] {
  const resolve = (schema: Schema | undefined): Schema => {
    let s = schema ?? {};
    while (s.$ref) s = doc.components?.schemas?.[s.$ref.split("/").pop() as string] ?? {};
    // A nullable or a union: the first variant that is not null stands for it.
    const variants = s.anyOf ?? s.oneOf;
    if (variants) return resolve(variants.find((v) => resolve(v).type !== "null") ?? variants[0]);
    return s;
  };
  const synthesize = (schema: Schema | undefined): unknown => {
    const s = resolve(schema);
    if (s.examples?.length) return s.examples[0];
    if (s.default !== undefined) return s.default;
    if (s.const !== undefined) return s.const;
    if (s.enum?.length) return s.enum[0];
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
    switch (type) {
      case "object":
        return Object.fromEntries(
          (s.required ?? []).map((name) => [name, synthesize(s.properties?.[name])]),
        );
      case "array":
        return (s.minItems ?? 0) > 0 ? [synthesize(s.items)] : [];
      case "integer":
      case "number": {
        const low = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : s.minimum;
        return low !== undefined && low > 1
          ? low
          : s.maximum !== undefined && s.maximum < 1
            ? s.maximum
            : 1;
      }
      case "boolean":
        return true;
      case "string":
        if (s.format === "date-time") return new Date().toISOString();
        if (s.format === "uri") return "http://127.0.0.1:9/mcp";
        return "fuzz".padEnd(s.minLength ?? 0, "z").slice(0, s.maxLength ?? 4);
      default:
        return "fuzz";
    }
  };

  const parameters = operation.parameters ?? [];
  const usual = (p: Parameter) => seeds(operation, p.name) ?? String(synthesize(p.schema));
  const pathValue = (p: Parameter) => encodeURIComponent(usual(p));
  const target = (override?: { name: string; in: string; url: string }) => {
    let path = operation.template;
    for (const p of parameters.filter((p) => p.in === "path")) {
      const value =
        override?.in === "path" && override.name === p.name ? override.url : pathValue(p);
      path = path.replace(`{${p.name}}`, value);
    }
    const query: string[] = [];
    for (const p of parameters.filter((p) => p.in === "query")) {
      if (override?.in === "query" && override.name === p.name)
        query.push(`${p.name}=${override.url}`);
      else if (p.required || seeds(operation, p.name) !== undefined)
        query.push(`${p.name}=${encodeURIComponent(usual(p))}`);
    }
    return query.length ? `${path}?${query.join("&")}` : path;
  };

  const media = operation.requestBody?.content?.["application/json"];
  const example = Object.values(media?.examples ?? {})[0]?.value;
  const baseline = media ? (example ?? synthesize(media.schema)) : undefined;
  const base = { operation, method: operation.method };
  const cases: Case[] = [
    {
      ...base,
      target: target(),
      ...(media ? { body: JSON.stringify(baseline) } : {}),
      varied: "nothing",
      edge: false,
      ofOperation: true,
    },
  ];
  for (const p of parameters.filter((p) => p.in === "path" || p.in === "query")) {
    for (const edge of edgesFor(resolve(p.schema), usual(p))) {
      cases.push({
        ...base,
        target: target({ name: p.name, in: p.in, url: edge.url }),
        ...(media ? { body: JSON.stringify(baseline) } : {}),
        varied: `${p.in} ${p.name} = ${edge.label}`,
        edge: true,
        ofOperation: !(p.in === "path" && edge.url === ""),
      });
    }
  }
  if (media) {
    const body = (varied: string, fields: Partial<Case>): Case => ({
      ...base,
      target: target(),
      varied,
      edge: false,
      ofOperation: true,
      ...fields,
    });
    const json = JSON.stringify(baseline);
    cases.push(
      body("no body", {}),
      body("a body that is not JSON", { body: `${json.slice(0, -1)},` }),
      body("the body as text/plain", { body: json, contentType: "text/plain" }),
      body("a body of 100 KiB", {
        body: JSON.stringify({ ...(baseline as object), fuzz: "x".repeat(100 * 1024) }),
      }),
      // JSON that is not an object: never read as {} (a reset of every counter) nor a 500.
      ...["null", '"x"', "true", "[]", "12"].map((raw) => body(`the body ${raw}`, { body: raw })),
      body("a body nested 5,000 levels deep", {
        body: `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`,
      }),
    );
    for (const { steps, schema } of fields(resolve, media.schema)) {
      const current = steps.reduce<unknown>(
        (value, step) => (value as Record<string | number, unknown> | undefined)?.[step.key],
        baseline,
      );
      for (const edge of edgesFor(schema, current ?? synthesize(schema))) {
        cases.push({
          ...base,
          target: target(),
          body: withRawValue(baseline, steps, synthesize, edge.json),
          varied: `body ${steps.map((s) => s.key).join(".")} = ${edge.label}`,
          edge: true,
          ofOperation: true,
        });
      }
    }
  }
  return cases;
}

type Step = { key: string | number; schema: Schema };

/** Every place in a body: each field at any depth, containers included, arrays by their first item. */
function fields(
  resolve: (s: Schema | undefined) => Schema,
  root: Schema | undefined,
  steps: Step[] = [],
  found: { steps: Step[]; schema: Schema }[] = [],
): { steps: Step[]; schema: Schema }[] {
  const s = resolve(root);
  if (steps.length > 0) found.push({ steps, schema: s });
  if (steps.length >= 4) return found;
  for (const [key, child] of Object.entries(s.properties ?? {}))
    fields(resolve, child, [...steps, { key, schema: child }], found);
  // A map (headers, details): one entry of it.
  if (!s.properties && typeof s.additionalProperties === "object")
    fields(
      resolve,
      s.additionalProperties,
      [...steps, { key: "fuzz", schema: s.additionalProperties }],
      found,
    );
  if (s.items) fields(resolve, s.items, [...steps, { key: 0, schema: s.items }], found);
  return found;
}

/** The baseline body as JSON text with `raw` (a JSON token) at `steps`, made where missing. */
function withRawValue(
  baseline: unknown,
  steps: Step[],
  synthesize: (s: Schema | undefined) => unknown,
  raw: string,
): string {
  const MARK = "@@edge-value@@";
  const body = structuredClone(baseline) as Record<string | number, unknown>;
  let container = body;
  for (const [i, step] of steps.entries()) {
    if (i === steps.length - 1) {
      container[step.key] = MARK;
      break;
    }
    const next = container[step.key];
    if (typeof next !== "object" || next === null) {
      const made = synthesize(step.schema);
      // An array to reach into needs an item to put the value in.
      container[step.key] =
        Array.isArray(made) && made.length === 0 ? [synthesize(steps[i + 1]?.schema)] : made;
    }
    container = container[step.key] as Record<string | number, unknown>;
  }
  return JSON.stringify(body).replace(JSON.stringify(MARK), raw);
}
