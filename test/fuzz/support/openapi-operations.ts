import fc from "fast-check";
import { queryString } from "./arbitraries.ts";
import type { FuzzPlatform } from "./fuzz-platform.ts";
import { compact, type FuzzRequest } from "./http-client.ts";
import {
  type Auth,
  authArbitrary,
  type Body,
  bodyArbitrary,
  COMMON_PARAMETERS,
  joinQuery,
  pathParameter,
} from "./request-parts.ts";
import { type Components, type JsonSchema, valueFor } from "./schema-values.ts";

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  schema?: JsonSchema;
}

interface OperationObject {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, unknown>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Components };
}

/** One documented operation: a method on a path template, with what the document says it takes. */
export interface Operation {
  method: string;
  /** `/apis/v2/triple/{type}/{idc}`, as the document writes it. */
  template: string;
  parameters: Parameter[];
  body: { type: string; schema: JsonSchema } | undefined;
  /** Needs a token (or, under /admin, the operator's): a security requirement, none of them empty. */
  secured: boolean;
}

const METHODS = new Set(["get", "put", "post", "delete", "patch"]);

/** Whether a caller must prove who it is: an empty requirement (`{}`) among them lets anyone in. */
function secured(security: Record<string, unknown>[] | undefined): boolean {
  return security !== undefined && security.length > 0 && security.every((s) => Object.keys(s).length > 0);
}

/**
 * The document's operations, deletions last, so what the others reach (the platform's files, its
 * directory entries) still exists while they are fuzzed.
 */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const [type, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: operation.parameters ?? [],
        body: type && media?.schema ? { type, schema: media.schema } : undefined,
        secured: secured(operation.security) || template.startsWith("/admin/"),
      });
    }
  }
  return operations.sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
}

/** A route as Hono registers it: `{name}` written `:name`. */
export function honoPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ":$1");
}

/** The family a route's inputs are counted under: its API area, as the summary lines name it. */
export function routeFamily(template: string): string {
  const directory = /^\/apis\/v2d?\/(\w+)/.exec(template);
  if (directory) return `directory ${directory[1]}`;
  if (template.startsWith("/oauth2/authorize")) return "oauth2 authorize";
  if (template.startsWith("/oauth2") || template.startsWith("/.well-known")) return "oauth2";
  if (template.includes("notification")) return "notification";
  if (template.startsWith("/v1/signature")) return "signature";
  if (template === "/healthz" || template === "/readyz") return "health";
  if (template.startsWith("/docs") || template === "/openapi.json") return "docs";
  return template.split("/")[1] ?? template;
}

/**
 * The values that exist on the fuzzed platform, by the name of the path parameter they fit. None
 * for the operator's routes: a fuzzed call must not rotate the secrets of the applications in use.
 */
function knownValues(platform: FuzzPlatform, template: string): Record<string, string[]> {
  const { userId, account, deptCode, postCode, fileId, secureFileId } = platform.known;
  if (template.startsWith("/admin/")) return { domain: ["fuzz.edu"] };
  if (template.startsWith("/file/")) return { id: [fileId, secureFileId], size: ["16x16", "64x64"] };
  return {
    userId: [userId],
    id: [userId, account],
    idc: [account, `${account}@fuzz.edu`, deptCode, postCode],
    key: ["FavoriteApps", "FavoriteTasks", "fuzz.key"],
    value: ["1", "app-1"],
    position: [`${deptCode}:${postCode}`, "*:*", `${deptCode}:*`],
    eSignCode: ["FUZZ-SEAL"],
    file: ["swagger-ui.css", "swagger-ui-bundle.js"],
  };
}

/** Who may call it: the operator for /admin, every kind of token elsewhere; nobody and impostors always. */
function authChoices(operation: Operation): Auth[] {
  if (operation.template.startsWith("/admin/")) return ["admin", "admin", "admin", "none", "garbage", "sys"];
  if (!operation.secured) return ["none", "none", "garbage", "sys"];
  return ["sys", "sys", "global", "user", "user", "password", "none", "garbage", "forged"];
}

/** Keys a fuzzed body must not carry: feeds would be fetched on a schedule from the fuzzed URL. */
function withoutScheduledFetches(operation: Operation, value: unknown): unknown {
  if (
    operation.template === "/admin/bootstrap" &&
    typeof value === "object" &&
    value !== null &&
    "feeds" in value
  ) {
    const { feeds: _feeds, ...rest } = value as Record<string, unknown>;
    return rest;
  }
  return value;
}

/**
 * Requests for an operation: its path parameters filled with existing values, schema values and
 * attacks; its declared query parameters (and the undeclared ones spec 001 reads) with repeated,
 * huge and wrongly typed values; a body of every kind; and every kind of caller.
 */
export function operationRequests(
  operation: Operation,
  document: OpenApiDocument,
  platform: FuzzPlatform,
): fc.Arbitrary<{ request: FuzzRequest; auth: Auth }> {
  const components = document.components?.schemas ?? {};
  const known = knownValues(platform, operation.template);
  const pathNames = [...operation.template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const pathValues = fc.tuple(
    ...pathNames.map((name) => {
      const declared = operation.parameters.find((p) => p.in === "path" && p.name === name)?.schema ?? {
        type: "string",
      };
      return pathParameter(known[name] ?? [], valueFor(declared, components));
    }),
  );
  const queryNames = operation.parameters.filter((p) => p.in === "query").map((p) => p.name);
  const query = queryString([...queryNames, ...COMMON_PARAMETERS]);
  const schemaBody = operation.body
    ? valueFor(operation.body.schema, components).map((value) => withoutScheduledFetches(operation, value))
    : undefined;
  const carriesBody = operation.method !== "GET";
  const body: fc.Arbitrary<Body> = carriesBody
    ? bodyArbitrary(schemaBody, operation.body?.type)
    : fc.oneof(
        { weight: 9, arbitrary: fc.constant<Body>({ headers: {} }) },
        { weight: 1, arbitrary: bodyArbitrary(undefined) },
      );
  return fc
    .record({ path: pathValues, query, body, auth: authArbitrary(authChoices(operation), platform.tokens) })
    .map(({ path, query, body, auth }) => {
      let at = 0;
      const concrete = operation.template.replace(/\{\w+\}/g, () => path[at++] ?? "");
      return compact({
        auth: auth.auth,
        request: {
          method: operation.method,
          path: `${concrete}${joinQuery(query, auth.query)}`,
          headers: { ...body.headers, ...auth.headers },
          ...(body.body === undefined ? {} : { body: body.body }),
        },
      });
    });
}
