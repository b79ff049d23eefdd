import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { LoginLimiter } from "../../identity/login-limiter.ts";
import { sameText } from "../../runtime/secrets.ts";
import { clientAddress } from "../client-address.ts";
import type { GatewayUses } from "../gateway-env.ts";
import {
  type ConsoleApp,
  type ConsoleEnv,
  type ConsoleForm,
  consolePage,
  errorPage,
  render,
} from "./console-page.ts";
import { type ConsoleSessions, csrfMatches } from "./sessions.ts";
import { signInView } from "./sign-in-views.tsx";

/** The session cookie: an opaque id, never the operator token. */
const COOKIE = "console_session";
const COOKIE_PATH = "/console";
/** Paths served without a session. */
const OPEN_PATHS: ReadonlySet<string> = new Set(["/console/sign-in", "/console/style.css"]);
const FORM_TYPE = "application/x-www-form-urlencoded";

/** A posted form as the body-limit middleware cached it (URLSearchParams on Node, FormData elsewhere). */
function formOf(data: { getAll(name: string): unknown[] }): ConsoleForm {
  const all = (name: string) =>
    data.getAll(name).filter((value): value is string => typeof value === "string");
  return { get: (name) => all(name)[0], all };
}

/** The form of a POST, when it is one the console takes (URL-encoded); undefined otherwise. */
export async function postedForm(c: Parameters<MiddlewareHandler<ConsoleEnv>>[0]) {
  if (!(c.req.header("content-type") ?? "").startsWith(FORM_TYPE)) return undefined;
  return formOf(await c.req.formData());
}

/**
 * Every console request but the sign-in page and the stylesheet needs a session: a page without
 * one sends the browser to sign in, a POST is refused. Every POST carries the session's CSRF
 * token in its `csrf` field (multipart uploads on `multipartPaths`, which check it among their
 * fields); a missing or wrong one is refused with 403.
 */
export function requireSession(
  sessions: ConsoleSessions,
  multipartPaths: ReadonlySet<string>,
): MiddlewareHandler<ConsoleEnv> {
  return async function requireSession(c, next) {
    if (OPEN_PATHS.has(c.req.path)) return next();
    const session = sessions.find(getCookie(c, COOKIE));
    if (!session) {
      if (c.req.method === "POST") return errorPage(c, 403, "No console session: sign in again.");
      return c.redirect("/console/sign-in", 303);
    }
    c.set("session", session);
    if (c.req.method !== "POST") return next();
    const multipart = (c.req.header("content-type") ?? "").startsWith("multipart/form-data");
    if (multipart && multipartPaths.has(c.req.path)) return next();
    const form = await postedForm(c);
    if (!form || !csrfMatches(session, form.get("csrf")))
      return errorPage(c, 403, "The form's token is missing or stale: reload the page and try again.");
    c.set("form", form);
    return next();
  };
}

/**
 * Signing in with the operator token (compared in constant time; failures counted per client
 * address, too many lock the address out for a while) and out again.
 */
export function signInRoutes(
  app: ConsoleApp,
  deps: GatewayUses<"config" | "db" | "log">,
  sessions: ConsoleSessions,
  token: string,
) {
  const { config, log } = deps;
  const limiter = new LoginLimiter(
    deps.db.sql,
    config.oauth.loginMaxFailures,
    config.oauth.loginLockoutSeconds,
  );
  const secure = config.http.publicUrl.startsWith("https:");

  consolePage(app, "/sign-in", {
    get: (c) => {
      if (sessions.find(getCookie(c, COOKIE))) return c.redirect("/console", 303);
      return render(c, signInView({}));
    },
    post: async (c) => {
      const form = await postedForm(c);
      if (!form) return render(c, signInView({ error: "Sign in with the form." }), 400);
      const address = clientAddress(c, config.http.trustProxyHops);
      const subject = `console:${address}`;
      const locked = await limiter.lockedFor([subject]);
      if (locked > 0) {
        const error = `Too many failed sign-ins from your address: try again in ${locked} s.`;
        return render(c, signInView({ error }), 429);
      }
      if (!sameText(form.get("token") ?? "", token)) {
        await limiter.recordFailure([subject]);
        log.warn({ address }, "console sign-in refused: wrong operator token");
        return render(c, signInView({ error: "Wrong operator token." }), 401);
      }
      await limiter.recordSuccess(subject);
      // A new id at every sign-in: a session id known before it never becomes a signed-in one.
      sessions.close(getCookie(c, COOKIE));
      const { id } = sessions.open();
      setCookie(c, COOKIE, id, { httpOnly: true, sameSite: "Strict", secure, path: COOKIE_PATH });
      log.info({ address }, "operator signed in to the console");
      return c.redirect("/console", 303);
    },
  });

  consolePage(app, "/sign-out", {
    post: (c) => {
      sessions.close(getCookie(c, COOKIE));
      deleteCookie(c, COOKIE, { path: COOKIE_PATH, secure, httpOnly: true, sameSite: "Strict" });
      return c.redirect("/console/sign-in", 303);
    },
  });
}
