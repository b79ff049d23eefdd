import type { Operation } from "./openapi-operations.ts";
import type { JsonSchema } from "./schema-values.ts";

const text: JsonSchema = { type: "string" };
const pathParameter = (name: string, schema: JsonSchema = text) => ({ name, in: "path" as const, schema });

function operation(
  method: string,
  template: string,
  options: Partial<Pick<Operation, "parameters" | "body" | "secured">> = {},
): Operation {
  return { method, template, parameters: [], body: undefined, secured: false, ...options };
}

const upload: Operation["body"] = {
  type: "multipart/form-data",
  schema: { type: "object", properties: { file: text, thumbsizes: text }, required: ["file"] },
};

/**
 * Routes the gateway serves that /openapi.json does not describe, written out here so they are
 * fuzzed like the documented ones (the route census fails on a route in neither list). Destructive
 * ones come last, so the files the others reach still exist while they run.
 */
export const UNDOCUMENTED_OPERATIONS: readonly Operation[] = [
  operation("GET", "/openapi.json"),
  operation("GET", "/docs"),
  operation("GET", "/docs/assets/{file}", { parameters: [pathParameter("file")] }),
  operation("GET", "/oauth2/jwks"),
  operation("GET", "/.well-known/oauth-authorization-server"),
  operation("GET", "/oauth2/authorize", {
    parameters: [
      "response_type",
      "client_id",
      "redirect_uri",
      "scope",
      "state",
      "code_challenge",
      "code_challenge_method",
    ].map((name) => ({ name, in: "query" as const, schema: text })),
  }),
  operation("POST", "/oauth2/authorize/login", {
    body: {
      type: "application/x-www-form-urlencoded",
      schema: { type: "object", properties: { request: text, username: text, password: text } },
    },
  }),
  operation("POST", "/oauth2/authorize/consent", {
    body: {
      type: "application/x-www-form-urlencoded",
      schema: { type: "object", properties: { request: text, decision: { enum: ["allow", "deny"] } } },
    },
  }),
  operation("GET", "/file/{id}/meta", {
    parameters: [pathParameter("id", { type: "string", format: "uuid" })],
  }),
  operation("GET", "/file/{id}/thumb/{size}", {
    parameters: [
      pathParameter("id", { type: "string", format: "uuid" }),
      pathParameter("size", { type: "string", pattern: "^\\d{1,4}[x*]\\d{1,4}$" }),
    ],
  }),
  operation("PUT", "/file", { secured: true, body: upload }),
  operation("POST", "/export/{format}", {
    secured: true,
    parameters: [pathParameter("format", { enum: ["docx", "pdf", "png", "xlsx"] })],
    body: {
      type: "application/json",
      schema: {
        type: "object",
        properties: {
          template: text,
          data: {
            type: "array",
            items: { type: "array", items: { type: ["string", "number", "boolean", "null"] } },
          },
          fields: {
            type: "array",
            items: {
              type: "object",
              properties: {
                name: text,
                type: text,
                label: text,
                merge: { type: "boolean" },
                groupName: text,
              },
            },
          },
          label: { type: "boolean" },
          row: { type: "integer" },
          column: { type: "integer" },
          page: { type: "integer" },
        },
      },
    },
  }),
  operation("POST", "/file/{id}/meta", {
    secured: true,
    parameters: [pathParameter("id", { type: "string", format: "uuid" })],
    body: {
      type: "application/json",
      schema: {
        type: "object",
        properties: {
          meta: {
            type: "object",
            properties: {
              secure: { type: "boolean" },
              token: { type: ["string", "null"], minLength: 16, maxLength: 256 },
              tokenExpire: { type: ["integer", "null"] },
              tokenDisposable: { type: "boolean" },
              thumbsizes: {
                type: "array",
                items: { type: "string", pattern: "^\\d{1,4}x\\d{1,4}$" },
                maxItems: 5,
              },
            },
          },
        },
      },
    },
  }),
  operation("POST", "/file/{id}", {
    secured: true,
    parameters: [pathParameter("id", { type: "string", format: "uuid" })],
    body: upload,
  }),
  operation("DELETE", "/file/{id}", {
    secured: true,
    parameters: [pathParameter("id", { type: "string", format: "uuid" })],
  }),
];

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
