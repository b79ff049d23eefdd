import fc from "fast-check";
import {
  malformedJsonText,
  nastyJsonValue,
  nastyString,
  percentEncode,
  queryString,
  traversal,
  urlValue,
} from "./arbitraries.ts";
import { ADMIN_TOKEN, BODY_LIMIT_BYTES, type FuzzTokens } from "./fuzz-platform.ts";
import { BOUNDARY, multipartBody, type Part, partName, partType } from "./multipart.ts";

/**
 * Who a request claims to be: nobody, a token that is not one (garbage, an unsigned or tampered
 * copy of a real one), a real token of each kind, or the operator's.
 */
export type Auth = "none" | "garbage" | "forged" | keyof FuzzTokens | "admin";

export const VALID_AUTH: ReadonlySet<Auth> = new Set(["sys", "global", "user", "password", "admin"]);

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Copies of a real token that must not verify: unsigned (`alg: none`), re-signed payloads, cut short. */
export function forgedTokens(real: string): string[] {
  const [header, payload, signature] = real.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
  const widened = base64url({ ...claims, scope: "signature sys_triple_edit", exp: 4_102_444_800 });
  return [
    `${base64url({ alg: "none", typ: "JWT" })}.${payload}.`,
    `${base64url({ alg: "HS256", typ: "JWT" })}.${payload}.${signature}`,
    `${header}.${widened}.${signature}`,
    `${header}.${payload}`,
    `${header}.${payload}.${signature.slice(0, -4)}`,
    `${header}.${payload}.${signature}.${signature}`,
  ];
}

const garbageToken = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~+/=-]{1,300}$/),
  fc.constantFrom("null", "undefined", "Bearer", "a.b.c", "eyJ.eyJ.", "..", ".", "%00", "%2e%2e%2f"),
);

/** The headers and query parameter that carry `auth`, in the header or in `access_token`. */
export function authArbitrary(
  choices: readonly Auth[],
  tokens: FuzzTokens,
): fc.Arbitrary<{ auth: Auth; headers: Record<string, string>; query: string }> {
  type Carried = { auth: Auth; headers: Record<string, string>; query: string };
  const forged = forgedTokens(tokens.sys).concat(forgedTokens(tokens.user));
  return fc.constantFrom(...choices).chain((auth) => {
    const value: fc.Arbitrary<string | undefined> =
      auth === "none"
        ? fc.constant(undefined)
        : auth === "garbage"
          ? garbageToken
          : auth === "forged"
            ? fc.constantFrom(...forged)
            : fc.constant(auth === "admin" ? ADMIN_TOKEN : tokens[auth]);
    const placement = fc.constantFrom("header", "header", "query", "basic", "lower");
    return fc.tuple(value, placement).map(([token, where]): Carried => {
      if (token === undefined) return { auth, headers: {}, query: "" };
      // The operator token is read from the header only; elsewhere both places must work.
      const at = auth === "admin" && where === "query" ? "header" : where;
      if (at === "query") return { auth, headers: {}, query: `access_token=${percentEncode(token)}` };
      if (at === "basic")
        return {
          auth: "garbage",
          headers: { authorization: `Basic ${Buffer.from(token).toString("base64")}` },
          query: "",
        };
      return {
        auth,
        headers: { authorization: `${at === "lower" ? "bearer" : "Bearer"} ${token}` },
        query: "",
      };
    });
  });
}

/** Parameter names spec 001 reads from the query, a form or a JSON body without declaring them. */
export const COMMON_PARAMETERS = [
  "code",
  "name",
  "description",
  "source",
  "tags",
  "meta",
  "email",
  "phone",
  "title",
  "express",
  "parent",
  "independent",
  "formal",
  "domain",
  "number",
  "start",
  "limit",
  "accounts",
  "keyword",
  "positions",
  "verbose",
  "id",
  "template",
  "data",
  "fields",
  "label",
  "row",
  "column",
  "page",
  "secure",
] as const;

export interface Body {
  headers: Record<string, string>;
  body?: Buffer | string;
}

const jsonBody = (value: unknown): Body => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(value) ?? "null",
});

/** Content types that do not fit the body they come with, or are not content types. */
const WRONG_TYPES = [
  "text/plain",
  "application/xml",
  "application/json; charset=utf-16",
  "application/json;;",
  "application/vnd.api+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  `multipart/form-data; boundary="${"b".repeat(100)}"`,
  "image/png",
  "*/*",
  "",
];

/** Parameters as a JSON object: known names with values of any type. */
const parameterObject = fc.dictionary(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...COMMON_PARAMETERS) },
    { weight: 1, arbitrary: nastyString },
  ),
  nastyJsonValue,
  { maxKeys: 6 },
);

/**
 * Bodies of every kind a route may meet: its own schema's (when it has one), parameters as JSON,
 * a form or multipart, malformed JSON, oversized JSON, a list just past its limit (from the
 * schema), and bodies under a content type that does not match them.
 */
export function bodyArbitrary(
  schemaValue: fc.Arbitrary<unknown> | undefined,
  type = "application/json",
): fc.Arbitrary<Body> {
  const encode =
    type === "application/x-www-form-urlencoded"
      ? formBody
      : type === "multipart/form-data"
        ? multipartOf
        : jsonBody;
  const own = schemaValue ? schemaValue.map(encode) : parameterObject.map(jsonBody);
  return fc.oneof(
    { weight: 6, arbitrary: own },
    { weight: 2, arbitrary: parameterObject.map(jsonBody) },
    {
      weight: 2,
      arbitrary: queryString(COMMON_PARAMETERS).map((form) => ({
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form,
      })),
    },
    {
      weight: 2,
      arbitrary: malformedJsonText.map((text) => ({
        headers: { "content-type": "application/json" },
        body: text,
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.array(fc.tuple(partName, nastyString, partType), { maxLength: 4 }), fc.boolean())
        .map(([parts, closed]) => ({
          headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
          body: multipartBody(
            parts.map(([name, data, type]) => ({ name, data, type })),
            BOUNDARY,
            { closed },
          ),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...WRONG_TYPES),
          fc.oneof(
            malformedJsonText,
            nastyString,
            parameterObject.map((value) => JSON.stringify(value)),
          ),
        )
        .map(([type, body]): Body => ({ headers: type ? { "content-type": type } : {}, body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("application/json", "application/x-www-form-urlencoded", "text/plain")
        .map((type) => ({
          headers: { "content-type": type },
          body:
            type === "application/json"
              ? JSON.stringify({ name: "x".repeat(BODY_LIMIT_BYTES + 1) })
              : `name=${"x".repeat(BODY_LIMIT_BYTES + 1)}`,
        })),
    },
    { weight: 1, arbitrary: fc.constant({ headers: {} }) },
  );
}

/** A form of a schema's values, the way the OAuth2 endpoints take them. */
function formBody(value: unknown): Body {
  const form = new URLSearchParams();
  if (typeof value === "object" && value !== null)
    for (const [key, item] of Object.entries(value))
      form.append(key, typeof item === "string" ? item : (JSON.stringify(item) ?? ""));
  return { headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() };
}

/** A multipart form of a schema's values: strings as they are, `file` as a file part, the rest as JSON. */
function multipartOf(value: unknown): Body {
  const entries: [string, unknown][] =
    typeof value === "object" && value !== null ? Object.entries(value) : [["value", value]];
  const parts = entries.map(
    ([name, item]): Part =>
      name === "file"
        ? { name, filename: "upload.pdf", type: "application/pdf", data: String(item) }
        : { name, data: typeof item === "string" ? item : (JSON.stringify(item) ?? "") },
  );
  return {
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: multipartBody(parts, BOUNDARY),
  };
}

/** A path parameter: a value that exists (so the route goes deep), one of its schema's, or an attack. */
export function pathParameter(
  known: readonly string[],
  schemaValue: fc.Arbitrary<unknown>,
): fc.Arbitrary<string> {
  return fc
    .oneof(
      ...(known.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...known).map(percentEncode) }] : []),
      {
        weight: 3,
        arbitrary: schemaValue.map((value) =>
          percentEncode(typeof value === "string" ? value : (JSON.stringify(value) ?? "")),
        ),
      },
      { weight: 2, arbitrary: urlValue },
      { weight: 2, arbitrary: traversal },
    )
    .map((segment) => segment.slice(0, 4000));
}

/** Joins query parts, leaving the request line under Node's 16 KB header limit. */
export function joinQuery(...parts: string[]): string {
  const query = parts.filter(Boolean).join("&").slice(0, 10_000);
  return query ? `?${query}` : "";
}
