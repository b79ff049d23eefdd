import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { validate } from "@readme/openapi-parser";
import Ajv2020 from "ajv/dist/2020.js";
import { type Surface, surfaceOf } from "../fuzz/support/envelopes.ts";
import { startTestPlatform, type TestPlatform, tempDir } from "../support/platform.ts";

const ADMIN_TOKEN = "document-admin-token-0123456789abcdefghijk";

interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  security?: Record<string, unknown>[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}

const METHODS = new Set(["get", "put", "post", "delete", "patch"]);
const FORM = "application/x-www-form-urlencoded";
const OPERATIONS_INDEX = fileURLToPath(new URL("../../docs/operations-index.md", import.meta.url));

/**
 * The numbered operations of spec 001 in docs/operations-index.md: each number with the methods
 * and paths its row names (`GET /me/apps`), a `{name}` standing for any one path segment.
 */
async function indexedOperations(numbered = true): Promise<Map<string, { method: string; path: RegExp }[]>> {
  const index = new Map<string, { method: string; path: RegExp }[]>();
  for (const line of (await readFile(OPERATIONS_INDEX, "utf8")).split("\n")) {
    const row = (numbered ? /^\|\s*(\d+\.\d+)\s*\|([^|]*)\|/ : /^\|\s*([a-z][^|]*?)\s*\|([^|]*)\|/).exec(
      line,
    );
    if (!row) continue;
    const routes = [...row[2]!.matchAll(/`(GET|PUT|POST|DELETE) (\/[^`]*)`/g)].map(([, method, path]) => ({
      method: method!.toLowerCase(),
      path: new RegExp(`^${path!.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`),
    }));
    if (!numbered && routes.length === 0) continue;
    assert.ok(routes.length > 0, `the index's row ${row[1]} names a method and path`);
    index.set(row[1]!, routes);
  }
  return index;
}

/**
 * The operations a client or operator cannot do without (uploads, exports, tokens, the admin
 * API), with the content type of the body each takes.
 */
const SURFACES: Record<string, [method: string, path: string, body?: string][]> = {
  files: [
    ["put", "/file", "multipart/form-data"],
    ["get", "/file/{id}"],
    ["post", "/file/{id}", "multipart/form-data"],
    ["delete", "/file/{id}"],
    ["get", "/file/{id}/meta"],
    ["post", "/file/{id}/meta", "application/json"],
    ["get", "/file/{id}/thumb/{size}"],
  ],
  export: [["post", "/export/{format}", "application/json"]],
  oauth2: [
    ["post", "/oauth2/token", FORM],
    ["post", "/oauth2/introspect", FORM],
    ["post", "/oauth2/revoke", FORM],
    ["get", "/oauth2/authorize"],
    ["post", "/oauth2/authorize/login", FORM],
    ["post", "/oauth2/authorize/consent", FORM],
    ["get", "/oauth2/jwks"],
    ["get", "/.well-known/oauth-authorization-server"],
  ],
  admin: [
    ["put", "/admin/bootstrap", "application/json"],
    ["post", "/admin/applications/{id}/secret"],
    ["post", "/admin/signing-keys/rotate"],
    ["delete", "/admin/seals/{code}"],
    ["get", "/admin/feeds/{domain}"],
    ["get", "/admin/feeds/{domain}/runs/{id}"],
    ["post", "/admin/feeds/{domain}/runs"],
  ],
};

/** The component each surface's failures are written in. */
const ENVELOPES: Record<Surface, string> = {
  oauth: "OAuthError",
  authorize: "OAuthError",
  "open-api": "OpenApiError",
  signature: "SignatureFailure",
  workflow: "ErrorResponse",
  platform: "ErrorResponse",
};

describe("the OpenAPI document", () => {
  let platform: TestPlatform;
  let removeDir: () => Promise<void>;
  let document: Document;
  const operations: [method: string, path: string, operation: Operation][] = [];

  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform({ DATA_DIR: dir.path, ADMIN_TOKEN });
    document = (await (await fetch(`${platform.url}/openapi.json`)).json()) as Document;
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item))
        if (METHODS.has(method)) operations.push([method, path, operation]);
  });

  after(async () => {
    await platform?.stop();
    await removeDir?.();
  });

  it("is a valid OpenAPI 3.1 document, with the admin API in it", async () => {
    const result = await validate(structuredClone(document) as never);
    assert.ok(result.valid, JSON.stringify(result));
    assert.ok(document.paths["/admin/bootstrap"]);
    for (const [, , operation] of operations)
      for (const requirement of operation.security ?? [])
        for (const scheme of Object.keys(requirement))
          assert.ok(document.components.securitySchemes[scheme], `security scheme ${scheme} is not defined`);
  });

  it("tags the directory's operations Directory, apart from the workflow's", () => {
    for (const path of [
      "/apis/v2/me/positions",
      "/apis/v2/triple/{type}/{idc}",
      "/apis/v2/position/{position}/users",
    ]) {
      const operations = Object.values(document.paths[path] ?? {}) as { tags?: string[] }[];
      assert.ok(operations.length > 0, `${path} is documented`);
      for (const operation of operations) assert.deepEqual(operation.tags, ["Directory"], path);
    }
  });

  it("names every operation with an operationId of its own", () => {
    const missing = operations.filter(([, , op]) => !op.operationId).map(([m, p]) => `${m} ${p}`);
    assert.deepEqual(missing, []);
    const ids = operations.map(([, , op]) => op.operationId!);
    const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(repeated, []);
  });

  it("starts the summary of every spec 001 operation with its number, as the operations index lists it", async () => {
    const index = await indexedOperations();
    assert.ok(index.has("3.2") && index.has("4.9"), "the index lists spec 001's numbered operations");
    // Spec 001 numbers no push operation: the index lists them by name.
    const unnumbered = [...(await indexedOperations(false)).values()].flat();
    const wrong: string[] = [];
    const cited = new Set<string>();
    for (const [method, path, operation] of operations) {
      const below = /^\/apis\/v2d?(\/.*)$/.exec(path)?.[1];
      if (!below) continue;
      const summary = operation.summary ?? "";
      for (const [number] of summary.matchAll(/\d+\.\d+/g)) cited.add(number);
      const number = /^(\d+\.\d+) /.exec(summary)?.[1];
      const listed = number === undefined ? unnumbered : index.get(number);
      if (!listed?.some((route) => route.method === method && route.path.test(below)))
        wrong.push(`${method} ${path}: "${summary.slice(0, 40)}"`);
    }
    assert.deepEqual(wrong, [], "operations whose summary does not start with their number in the index");
    assert.deepEqual(
      [...index.keys()].filter((number) => !cited.has(number)),
      [],
      "numbers the index lists that no operation's summary names",
    );
  });

  for (const [surface, listed] of Object.entries(SURFACES)) {
    it(`documents the ${surface} operations with their parameters, bodies, answers and errors`, () => {
      for (const [method, path, body] of listed) {
        const operation = document.paths[path]?.[method];
        assert.ok(operation, `${method} ${path} is not documented`);
        for (const [, name] of path.matchAll(/\{(\w+)\}/g))
          assert.ok(
            operation.parameters?.some((p) => p.in === "path" && p.name === name),
            `${method} ${path}: path parameter ${name} is not declared`,
          );
        if (body) {
          const media = operation.requestBody?.content[body];
          assert.ok(media?.schema, `${method} ${path}: no ${body} body`);
          const schema = media.schema.$ref
            ? document.components.schemas[media.schema.$ref.split("/").pop()!]
            : media.schema;
          assert.ok(Object.keys(schema?.properties ?? {}).length > 0, `${method} ${path}: its body's fields`);
        }
        const statuses = Object.keys(operation.responses).map(Number);
        assert.ok(
          statuses.some((status) => status < 400),
          `${method} ${path}: no answer on success`,
        );
      }
    });
  }

  it("documents the errors of every operation that takes input or a token, in its surface's envelope", () => {
    const silent: string[] = [];
    for (const [method, path, operation] of operations) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      const takesInput =
        (operation.parameters?.length ?? 0) > 0 ||
        operation.requestBody !== undefined ||
        (operation.security?.length ?? 0) > 0;
      if (takesInput && errors.length === 0) silent.push(`${method} ${path}`);
      // Readiness answers 503 with its own report: not ready is its answer, not a failure.
      if (path === "/readyz") continue;
      for (const [status, response] of errors) {
        const json = response.content?.["application/json"];
        if (!json) continue;
        assert.equal(
          json.schema?.$ref,
          `#/components/schemas/${ENVELOPES[surfaceOf(method.toUpperCase(), path)]}`,
          `${method} ${path} ${status}: not its surface's envelope`,
        );
      }
    }
    assert.deepEqual(silent, [], "operations that take input and document no error");
  });

  it("describes the envelopes the gateway really answers with", async () => {
    const ajv = new Ajv2020.default({ strict: false });
    for (const [name, schema] of Object.entries(document.components.schemas))
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    const failures: [string, RequestInit, string][] = [
      ["/file/00000000-0000-4000-8000-000000000000", {}, "ErrorResponse"],
      ["/apis/v2/me/profile", {}, "ErrorResponse"],
      ["/admin/signing-keys/rotate", { method: "POST" }, "ErrorResponse"],
      ["/notification/status", {}, "OpenApiError"],
      ["/v1/signature/SEAL", { method: "POST" }, "SignatureFailure"],
      [
        "/oauth2/token",
        { method: "POST", headers: { "content-type": FORM }, body: "grant_type=client_credentials" },
        "OAuthError",
      ],
    ];
    for (const [path, init, envelope] of failures) {
      const response = await fetch(`${platform.url}${path}`, init);
      assert.ok(response.status >= 400, `${path}: ${response.status}`);
      const body = (await response.json()) as object;
      const check = ajv.getSchema(`#/components/schemas/${envelope}`)!;
      assert.ok(
        check(body),
        `${path}: ${JSON.stringify(body)} is not ${envelope}: ${ajv.errorsText(check.errors)}`,
      );
      const documented = Object.keys(document.components.schemas[envelope]!.properties!).sort();
      assert.deepEqual(Object.keys(body).sort(), documented, `${path}: the fields of ${envelope}`);
    }
  });
});
