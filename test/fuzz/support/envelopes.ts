import { ErrorCode } from "../../../contracts/errors.ts";
import { WORKFLOW_ERRNO, type WorkflowErrorCode } from "../../../contracts/workflow-errors.ts";
import { errorMapping } from "../../../gateway/error-envelope.ts";
import { OAUTH_ERROR_CODES } from "../../../identity/oauth-errors.ts";
import type { FuzzRequest, FuzzResponse } from "./http-client.ts";

/**
 * The API surfaces and the error body each answers with: RFC 6749's `{error, error_description}`
 * (the authorization pages answer HTML or a redirect), spec 000's `{errno, error, total}` (the
 * signature API with its own errno rule), spec 001's `Response` with semantic failures on 200,
 * and the platform's own `Response` with real statuses (files, export, admin, everything else).
 */
export type Surface = "oauth" | "authorize" | "open-api" | "signature" | "workflow" | "platform";

const AUTHORIZE_PAGES = new Set([
  "GET /oauth2/authorize",
  "POST /oauth2/authorize/login",
  "POST /oauth2/authorize/consent",
]);
const OAUTH_ERRORS = new Set<string>(OAUTH_ERROR_CODES);
const ERROR_CODES = new Set<string>(Object.values(ErrorCode));
/** Spec 001: a well-formed call reports these in a 200 envelope. */
const SEMANTIC_CODES = new Set<string>([ErrorCode.NotFound, ErrorCode.Conflict, ErrorCode.Unprocessable]);
/** The one text of an error the platform did not expect (`internal` in contracts/messages.ts). */
const INTERNAL_TEXTS = new Set(["internal error", "内部错误"]);

/** The path as the router sees it: dot segments resolved (as the server's URL does), then decoded as Hono does. */
function routedPath(path: string): string {
  let bare = path.split("?", 1)[0] ?? "";
  try {
    bare = new URL(bare, "http://platform").pathname;
  } catch {}
  try {
    return decodeURI(bare);
  } catch {
    return bare;
  }
}

/** The surface whose envelope answers a request to `path`, by the prefixes the routers declare. */
export function surfaceOf(method: string, path: string): Surface {
  const routed = routedPath(path);
  if (AUTHORIZE_PAGES.has(`${method} ${routed}`)) return "authorize";
  if (routed.startsWith("/oauth2/")) return "oauth";
  if (routed === "/v1/notification" || routed.startsWith("/notification/")) return "open-api";
  if (routed.startsWith("/v1/signature/")) return "signature";
  if (routed.startsWith("/apis/")) return "workflow";
  return "platform";
}

/** Text that only a leak could put in a body: stack frames and the platform's own files. */
const LEAKS: readonly RegExp[] = [
  /\n\s+at [^\n]*:\d+:\d+/,
  /\bat (async )?[\w$.<>[\] ]+ \((file:\/\/|\/|node:)/,
  /\.(ts|js|mjs|cjs):\d+:\d+/,
  /node_modules/,
  /\/work\/main\b/,
  /\/op-test-[\w-]+/,
];

function leakIn(text: string): string | undefined {
  const cwd = process.cwd();
  if (text.includes(cwd)) return cwd;
  return LEAKS.map((pattern) => pattern.exec(text)?.[0]).find(Boolean);
}

function keysAre(body: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(body).sort();
  return own.length === keys.length && [...keys].sort().every((key, i) => own[i] === key);
}

const isInt = (value: unknown): value is number => Number.isInteger(value);

/**
 * 2.10 streams a file, so its failures cannot answer 200: a workflow refusal takes the status of its
 * kind (404xx, 403xx, 409xx as they read; 422xx 400; the rest 501), a platform failure its own.
 */
function downloadRefusalStatus(errno: number): number {
  const kind = Math.floor(errno / 100);
  if (kind === 404 || kind === 403 || kind === 409) return kind;
  return kind === 422 ? 400 : 501;
}

/** The workflow API's file downloads (2.10): `GET …/process/{id}/data/{format}`. */
const FILE_DOWNLOAD = /^\/apis\/v2d?\/process\/[^/?]+\/data\/[^/?]+(\?|$)/;

/** Why a parsed body is not the error envelope of `surface` for `status`; undefined when it is. */
function errorEnvelopeProblem(
  surface: Surface,
  status: number,
  body: unknown,
  statusFollowsCode = true,
  fileDownload = false,
): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return "the body is not a JSON object";
  const fields = body as Record<string, unknown>;
  if (surface === "oauth" || surface === "authorize") {
    if (!keysAre(fields, ["error", "error_description"])) return "not {error, error_description}";
    if (!OAUTH_ERRORS.has(String(fields.error)))
      return `error ${String(fields.error)} is not an RFC 6749 code`;
    if (typeof fields.error_description !== "string") return "error_description is not a string";
    if (INTERNAL_TEXTS.has(fields.error_description)) return "an internal error";
    return undefined;
  }
  if (surface === "open-api" || surface === "signature") {
    if (!keysAre(fields, ["errno", "error", "total"])) return "not {errno, error, total}";
    if (!isInt(fields.errno) || fields.errno === 0) return `errno ${String(fields.errno)} on a failure`;
    if (typeof fields.error !== "string" || fields.total !== 0) return "error or total of the wrong type";
    if (INTERNAL_TEXTS.has(fields.error)) return "an internal error";
    if (surface === "signature" && fields.errno !== (status === 401 ? 10007 : -2))
      return `signature errno ${fields.errno} with status ${status}`;
    if (status >= 500 && fields.errno !== -2) return `status ${status} with errno ${fields.errno}`;
    return undefined;
  }
  if (!keysAre(fields, ["errno", "ecode", "error", "total", "entities"]))
    return "not {errno, ecode, error, total, entities}";
  const { errno, ecode, error, total, entities } = fields;
  // The workflow's refusals have their own ecode and errno, and answer 200 like every semantic failure.
  if (surface === "workflow" && typeof ecode === "string" && Object.hasOwn(WORKFLOW_ERRNO, ecode)) {
    if (errno !== WORKFLOW_ERRNO[ecode as WorkflowErrorCode]) return `errno ${String(errno)} for ${ecode}`;
    if (typeof error !== "string" || total !== 0 || !Array.isArray(entities) || entities.length > 0)
      return "error, total or entities of the wrong type";
    const expected = fileDownload ? downloadRefusalStatus(errno as number) : 200;
    if (statusFollowsCode && status !== expected)
      return `status ${status} for ${ecode} (expected ${expected})`;
    return undefined;
  }
  if (typeof ecode !== "string" || !ERROR_CODES.has(ecode))
    return `ecode ${String(ecode)} is not one of ours`;
  const mapping = errorMapping(ecode as ErrorCode);
  if (errno !== mapping.errno) return `errno ${String(errno)} for ${ecode}`;
  if (typeof error !== "string" || total !== 0 || !Array.isArray(entities) || entities.length > 0)
    return "error, total or entities of the wrong type";
  if (ecode === ErrorCode.Internal) return "ecode INTERNAL";
  const expected =
    surface === "workflow" && SEMANTIC_CODES.has(ecode) && !fileDownload ? 200 : mapping.status;
  if (statusFollowsCode && status !== expected) return `status ${status} for ${ecode} (expected ${expected})`;
  return undefined;
}

/** Why a successful JSON body is not its surface's success envelope, when it carries one. */
function successEnvelopeProblem(surface: Surface, body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("errno" in body))
    return undefined;
  const fields = body as Record<string, unknown>;
  if (fields.errno !== 0) return errorEnvelopeProblem(surface, 200, body);
  if (!isInt(fields.total) || !Array.isArray(fields.entities) || typeof fields.error !== "string")
    return "a success envelope without total, entities or error";
  if ((surface === "workflow" || surface === "platform") && fields.ecode !== "SUCCESS")
    return `ecode ${String(fields.ecode)} on success`;
  return undefined;
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

function describe(request: FuzzRequest, response: FuzzResponse, problem: string): string {
  const body = request.body === undefined ? "" : Buffer.from(request.body).toString("utf8");
  return [
    problem,
    `request: ${request.method} ${request.path.slice(0, 600)}`,
    `request headers: ${JSON.stringify(request.headers ?? {}).slice(0, 600)}`,
    body
      ? `request body (${body.length} chars): ${JSON.stringify(body.slice(0, 600))}`
      : "request body: none",
    `response: ${response.status} ${String(response.headers["content-type"] ?? "")}`,
    `response body: ${response.body.toString("utf8").slice(0, 800)}`,
  ].join("\n");
}

/**
 * Throws unless the response is one the platform may give to bad input: no 5xx of its own making
 * (a 500 only with spec 000's errno -2, the specs' "could not be done"), no 503 (nothing here is
 * down), no stack trace or file path, and every failure in its surface's envelope.
 */
export function checkResponse(request: FuzzRequest, response: FuzzResponse): void {
  const fail = (problem: string): never => {
    throw new Error(describe(request, response, problem));
  };
  // Every answer of the gateway names its request; one without came from the HTTP layer, which
  // refused what it could not parse, before any route (and so any surface) was known.
  if (response.headers["x-request-id"] === undefined) {
    checkHttpLayerAnswer(response, fail);
    return;
  }
  const surface = surfaceOf(request.method, request.path);
  const text = response.body.toString("utf8");
  const leak = leakIn(text) ?? leakIn(JSON.stringify(response.headers));
  if (leak) fail(`the answer shows ${JSON.stringify(leak)}`);
  const { status } = response;
  if (status === 503) fail("503: no dependency is down in this test");
  if (status >= 500 && status !== 500) fail(`status ${status}`);
  if (status === 500 && (surface === "oauth" || surface === "authorize" || surface === "workflow"))
    fail(`500 on the ${surface} surface`);
  const type = String(response.headers["content-type"] ?? "");
  const json = type.includes("application/json") ? parseJson(response.body) : undefined;
  if (json && !json.ok) fail("a JSON content type over a body that is not JSON");

  if (surface === "authorize") {
    if (type.startsWith("text/html") && (status === 200 || status === 400)) return;
    if (status === 302) {
      if (!response.headers.location) fail("a redirect without Location");
      return;
    }
  }
  if (status === 304 || status === 206) return;
  if (status < 300) {
    if (json?.ok) {
      const problem = successEnvelopeProblem(surface, json.value);
      if (problem) fail(problem);
    }
    if (status === 500) fail("500");
    return;
  }
  if (status < 400) fail(`status ${status}`);
  if (!json?.ok) throw fail(`status ${status} without a JSON envelope`);
  const fileDownload = request.method === "GET" && FILE_DOWNLOAD.test(request.path);
  const problem = errorEnvelopeProblem(surface, status, json.value, true, fileDownload);
  if (problem) fail(problem);
}

/** The HTTP layer's refusal of a request it could not parse: a 4xx with the platform's envelope. */
function checkHttpLayerAnswer(response: FuzzResponse, fail: (problem: string) => never): void {
  if (![400, 408, 413, 431].includes(response.status)) fail(`status ${response.status} from the HTTP layer`);
  const json = parseJson(response.body);
  if (!json.ok) throw fail("the HTTP layer answered without a JSON envelope");
  const problem = errorEnvelopeProblem(
    "platform",
    errorMapping(ErrorCode.InvalidArgument).status,
    json.value,
    false,
  );
  if (problem) fail(problem);
}

/** Whether the answer is a success: a 2xx that is not spec 001's semantic failure on 200. */
/** A JSONP answer, `/**\/ callback(json);`, and its JSON. */
const JSONP = /^\/\*\*\/ [\w$.]+\(([\s\S]*)\);$/;

export function succeeded(response: FuzzResponse): boolean {
  if (response.status < 200 || response.status >= 400 || response.status === 302) return false;
  const type = String(response.headers["content-type"] ?? "");
  // JSONP answers a refusal with 200 too (a script cannot read a status): its envelope says.
  const jsonp = type.includes("application/javascript") ? JSONP.exec(response.body.toString("utf8")) : null;
  if (!type.includes("application/json") && !jsonp) return true;
  const json = parseJson(jsonp ? Buffer.from(jsonp[1]!) : response.body);
  if (!json.ok || typeof json.value !== "object" || json.value === null) return true;
  const errno = (json.value as { errno?: unknown }).errno;
  return errno === undefined || errno === 0;
}
