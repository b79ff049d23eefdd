import type { Context, MiddlewareHandler } from "hono";
import { ErrorCode, localizedError, type PlatformError } from "../../contracts/errors.ts";
import type { GatewayEnv } from "../gateway-env.ts";

const JSON_TYPE = /^application\/([\w.-]+\+)?json\b/i;
const FORM_TYPE = "application/x-www-form-urlencoded";
/** A surrogate without its pair: JSON can write one (`"\ud800"`), UTF-8 and Postgres cannot hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function refused(field: string, detail: string): PlatformError {
  return localizedError(ErrorCode.InvalidArgument, "invalidParameter", { field, detail }, { field });
}

/** Why Postgres could not store the text, when it could not. */
function unstorable(text: string): string | undefined {
  if (text.includes("\0")) return "must not contain NUL (U+0000) characters";
  if (LONE_SURROGATE.test(text)) return "must be well-formed Unicode, without unpaired surrogates";
  return undefined;
}

/** The first key or string of a JSON value Postgres could not store, by its path (`users.0.name`); walked without recursion. */
function unstorableIn(value: unknown): PlatformError | undefined {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [item, at] = stack.pop()!;
    if (typeof item === "string") {
      const detail = unstorable(item);
      if (detail) return refused(at || "body", detail);
    } else if (typeof item === "object" && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const path = at ? `${at}.${key}` : key;
        const detail = unstorable(key);
        if (detail) return refused(path, detail);
        stack.push([child, path]);
      }
    }
  }
  return undefined;
}

function checkUrl(c: Context<GatewayEnv>): void {
  if (c.req.path.includes("\0")) throw refused("path", "must not contain NUL (U+0000) characters");
  for (const [key, values] of Object.entries(c.req.queries())) {
    const detail = unstorable(key) ?? values.map(unstorable).find(Boolean);
    if (detail) throw refused(key, detail);
  }
}

/**
 * Postgres keeps no NUL (U+0000) in text or jsonb, and jsonb refuses an unpaired surrogate; no
 * caller has a reason to send either. Text that carries one (in the path, the query, a JSON or
 * form body) is refused here, naming its field, rather than failing in the database. A NUL reaches
 * a URL only as `%00` (a decoded URL holds no lone surrogate), so most requests cost one string
 * search; bodies the route streams (uploads) check their own fields.
 */
export function requireStorableText(): MiddlewareHandler<GatewayEnv> {
  return async function requireStorableText(c, next) {
    if (c.req.url.includes("%00")) checkUrl(c);
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const type = c.req.header("content-type") ?? "";
    if (JSON_TYPE.test(type)) {
      // Parsed once: the body stays cached for the route. Malformed JSON is the route's to report.
      const error = unstorableIn(await c.req.json().catch(() => undefined));
      if (error) throw error;
    } else if (type.startsWith(FORM_TYPE)) {
      const form = await c.req.formData().catch(() => undefined);
      form?.forEach((value, key) => {
        const detail = unstorable(key) ?? (typeof value === "string" ? unstorable(value) : undefined);
        if (detail) throw refused(key, detail);
      });
    }
    await next();
  };
}
