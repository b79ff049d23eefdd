import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { DEFAULT_JSON_MAX_DEPTH } from "../../contracts/json-nesting.ts";
import { nastyString, percentEncode } from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { BODY_LIMIT_BYTES, type FuzzPlatform, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, type FuzzRequest, type FuzzResponse, send } from "./support/http-client.ts";
import { type OpenApiDocument, type Operation, operationsOf } from "./support/openapi-operations.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { type JsonSchema, valueFor } from "./support/schema-values.ts";
import { FuzzTally } from "./support/tally.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();
const document = JSON.parse(
  (await send(platform.url, { method: "GET", path: "/openapi.json" })).body.toString(),
) as OpenApiDocument & {
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>
  >;
};

after(async () => {
  await tally.report();
  await platform.stop();
});

const LIMIT = DEFAULT_JSON_MAX_DEPTH;
/** Deep text stays well under the body limit, so the answer is about its depth and not its size. */
const ROOM = BODY_LIMIT_BYTES / 2;

/** The JSON body schema an operation documents, if it takes JSON. */
function jsonSchemaOf(operation: Operation): JsonSchema | undefined {
  const content = document.paths[operation.template]?.[operation.method.toLowerCase()]?.requestBody?.content;
  return content?.["application/json"]?.schema;
}

/** Operations that take a JSON body; a GET's body never reaches a route (a web Request has none). */
const jsonOperations = operationsOf(document).filter(
  (operation) => operation.method !== "GET" && jsonSchemaOf(operation) !== undefined,
);
/** Operations that read JSON text from a `data` parameter (the export service, 3.2 and 2.11). */
const textOperations = jsonOperations.filter(
  ({ method, template }) =>
    (method === "POST" && template.startsWith("/export/")) ||
    (method === "PUT" && /^\/apis\/v2d?\/process$/.test(template)) ||
    (method === "POST" && /^\/apis\/v2d?\/process\/\{id\}\/data$/.test(template)),
);

/** Path parameters that exist on the platform, so a body within the limit reaches the route's own code. */
function concretePath(template: string, known: FuzzPlatform["known"]): string {
  const values: Record<string, string> = template.startsWith("/file/")
    ? { id: known.fileId }
    : template.startsWith("/admin/")
      ? { domain: "fuzz.edu" }
      : {
          id: known.userId,
          userId: known.userId,
          idc: known.account,
          position: `${known.deptCode}:${known.postCode}`,
          eSignCode: "FUZZ-SEAL",
          format: "docx",
        };
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "fuzz"));
}

type Shape = "arrays" | "objects" | "mixed" | "wide";

/** One level's opening and closing text, for a shape, at level `i`. */
function level(shape: Shape, i: number, key: string): [string, string] {
  const object: [string, string] = [`{${JSON.stringify(key)}:`, "}"];
  const array: [string, string] = ["[", "]"];
  if (shape === "arrays") return array;
  if (shape === "objects") return object;
  if (shape === "wide")
    return i % 2 === 0 ? ['[1,"[{",{},', "]"] : [`{"x":[],"y":"}]",${JSON.stringify(key)}:`, "}"];
  return i % 3 === 0 ? array : object;
}

/** `depth` levels of `shape` around a scalar, as text: the value is never built here. */
function nested(depth: number, shape: Shape, key: string): string {
  const opens: string[] = [];
  const closes: string[] = [];
  for (let i = 0; i < depth; i++) {
    const [open, close] = level(shape, i, key);
    opens.push(open);
    closes.push(close);
  }
  return `${opens.join("")}"leaf"${closes.reverse().join("")}`;
}

const PLACEHOLDER = "\u0000deep\u0000";

/** A body of the operation's own schema with the deep value at one of its keys, or the deep value itself. */
function bodyWith(sample: unknown, deep: string, at: "whole" | "key", key: string): string {
  if (at === "whole" || typeof sample !== "object" || sample === null || Array.isArray(sample)) return deep;
  const keys = Object.keys(sample);
  const name = keys.length > 0 ? keys[Math.abs(hash(key)) % keys.length]! : key;
  const text = JSON.stringify({ ...sample, [name]: PLACEHOLDER }).replace(JSON.stringify(PLACEHOLDER), deep);
  // A schema's sample may be large itself: the deep value alone under the key keeps the body in bounds.
  return Buffer.byteLength(text) < BODY_LIMIT_BYTES ? text : `{${JSON.stringify(name)}:${deep}}`;
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

/** The levels the deep value itself has, so the whole body nests past the limit by `excess` or more. */
const deepValue = fc
  .record({
    shape: fc.constantFrom<Shape>("arrays", "objects", "mixed", "wide"),
    excess: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 100_000 })),
    // Short keys: each level repeats its key, and even the fewest levels past the limit must fit a body.
    key: fc.oneof(
      fc.constantFrom("data", "a", "content", "meta", "graph"),
      nastyString.map((key) => key.slice(0, 60)),
    ),
  })
  .map(({ shape, excess, key }) => {
    const perLevel = Math.max(...[0, 1, 2].map((i) => Buffer.byteLength(level(shape, i, key).join(""))));
    const room = Math.max(LIMIT + 1, Math.floor(ROOM / perLevel));
    return { text: nested(Math.min(LIMIT + excess, room), shape, key), key };
  });

/** Content types under which routes read a body as JSON: `c.req.json()` takes any. */
const jsonType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/merge-patch+json",
  "text/plain",
  undefined,
);

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const tokens = fc.constantFrom(platform.tokens.sys, platform.tokens.user, platform.tokens.global, "");

function mentionsLimit(response: FuzzResponse): boolean {
  const body = JSON.parse(response.body.toString()) as { error?: string; error_description?: string };
  return /JSON_MAX_DEPTH/.test(body.error_description ?? body.error ?? "");
}

/** A refusal naming the limit: 400 in its surface's envelope (checked), never a 5xx. */
async function refusedForDepth(request: FuzzRequest): Promise<void> {
  const answer = await send(platform.url, request);
  checkResponse(request, answer);
  assert.equal(
    answer.status,
    400,
    `${request.method} ${request.path.slice(0, 200)} answered ${answer.status}`,
  );
  assert.ok(
    mentionsLimit(answer),
    `the refusal does not name the limit: ${answer.body.toString().slice(0, 300)}`,
  );
}

describe("JSON nested past JSON_MAX_DEPTH, on every route that reads JSON", () => {
  it("refuses a JSON body nested too deep with a 400 naming the limit, before any route reads it", () => {
    assert.ok(jsonOperations.length > 20, `only ${jsonOperations.length} operations take JSON`);
    return fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "JSON nesting: bodies",
      runs: 300,
      arbitrary: fc
        .record({
          operation: fc.constantFrom(...jsonOperations),
          deep: deepValue,
          at: fc.constantFrom("whole" as const, "key" as const),
          type: jsonType,
          token: tokens,
          seed: fc.integer(),
        })
        .chain((input) =>
          valueFor(jsonSchemaOf(input.operation)!, document.components?.schemas ?? {}).map((sample) => ({
            ...input,
            sample,
          })),
        )
        .map(({ operation, deep, at, type, token, sample }) =>
          compact({
            request: {
              method: operation.method,
              path: concretePath(operation.template, platform.known),
              headers: { ...(type ? { "content-type": type } : {}), ...(token ? auth(token) : {}) },
              body: bodyWith(sample, deep.text, at, deep.key),
            },
          }),
        ),
      check: ({ request }) => refusedForDepth(request),
    });
  });

  it("refuses JSON text nested too deep in a `data` parameter, in the query or a form", () => {
    assert.ok(textOperations.length >= 3, "the export service, 3.2 and 2.11 take JSON text");
    return fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "JSON nesting: parameters",
      runs: 120,
      arbitrary: fc
        .record({
          operation: fc.constantFrom(...textOperations),
          shape: fc.constantFrom<Shape>("arrays", "objects", "mixed"),
          excess: fc.integer({ min: 1, max: 2000 }),
          carrier: fc.constantFrom("query" as const, "form" as const),
          format: fc.constantFrom("docx", "pdf", "xlsx", "png"),
        })
        .map(({ operation, shape, excess, carrier, format }) => {
          // A query stays under Node's 16 KB request line: some 200 levels past the limit at most.
          const data = nested(LIMIT + (carrier === "query" ? Math.min(excess, 200) : excess), shape, "a");
          const parameters = `code=fuzz-flow&userId=fuzzer&template=${percentEncode(`${platform.url}/file/${platform.known.fileId}`)}&data=${percentEncode(data)}`;
          const path = concretePath(operation.template, platform.known).replace("/docx", `/${format}`);
          const headers = auth(platform.tokens.sys);
          return compact({
            request:
              carrier === "query"
                ? { method: operation.method, path: `${path}?${parameters}`, headers }
                : {
                    method: operation.method,
                    path,
                    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
                    body: parameters,
                  },
          });
        }),
      check: ({ request }) => refusedForDepth(request),
    });
  });

  it("takes bodies up to the limit without a 5xx: nothing past the edge recurses out of stack", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "JSON nesting: within the limit",
      runs: 200,
      arbitrary: fc
        .record({
          // Operations that change the platform's own configuration stay out: their effects outlive the input.
          operation: fc.constantFrom(
            ...jsonOperations.filter((op) => !op.template.startsWith("/admin/") && op.method !== "DELETE"),
          ),
          shape: fc.constantFrom<Shape>("arrays", "objects", "mixed", "wide"),
          // The body's own level and the key's, and one more of a wide shape's siblings, stay within the limit.
          depth: fc.integer({ min: LIMIT - 12, max: LIMIT - 3 }),
          key: fc.constantFrom("data", "content", "meta", "locations", "fields", "attachment"),
        })
        .chain((input) =>
          valueFor(jsonSchemaOf(input.operation)!, document.components?.schemas ?? {}).map((sample) => ({
            ...input,
            sample,
          })),
        )
        .map(({ operation, shape, depth, key, sample }) =>
          compact({
            request: {
              method: operation.method,
              path: concretePath(operation.template, platform.known),
              headers: { "content-type": "application/json", ...auth(platform.tokens.sys) },
              body: bodyWith(sample, nested(depth, shape, key), "key", key),
            },
          }),
        ),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        assert.ok(answer.status < 500, `${request.method} ${request.path} answered ${answer.status}`);
        if (answer.status === 400) assert.ok(!mentionsLimit(answer), "refused within the limit");
      },
    }));
});
