import type { Context, Hono } from "hono";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import { afterKey, pageQuery } from "../admin-paging.ts";
import type { GatewayEnv } from "../gateway-env.ts";
import { ErrorView, type PageSession } from "./layout.tsx";
import type { ConsoleSession, Flash } from "./sessions.ts";

/** The request context of the console: the gateway's, with the operator's session once signed in. */
export interface ConsoleEnv {
  Bindings: GatewayEnv["Bindings"];
  /** `scripts`: the page runs the console's own scripts (a diagram), which its content policy then allows. */
  Variables: GatewayEnv["Variables"] & { session: ConsoleSession; form: ConsoleForm; scripts: boolean };
}
export type ConsoleContext = Context<ConsoleEnv>;
export type ConsoleApp = Hono<ConsoleEnv>;

/** A form as posted: the first value of a field, or every value of a repeated one (checkboxes). */
export interface ConsoleForm {
  get(name: string): string | undefined;
  all(name: string): string[];
}

/** Rows a console list shows per page. */
export const CONSOLE_PAGE_SIZE = 50;

type View = HtmlEscapedString | Promise<HtmlEscapedString>;
type Handler = (c: ConsoleContext) => Response | Promise<Response>;

/**
 * A console page: its view (GET, and HEAD) and its action (POST) at one path, registered for
 * every method and dispatched here; another method answers 405. The HTML pages are no API
 * operations: registered so, they stay out of the OpenAPI document and of the check that it lists
 * every API route.
 */
export function consolePage(app: ConsoleApp, path: string, handlers: { get?: Handler; post?: Handler }) {
  const allowed = [...(handlers.get ? ["GET", "HEAD"] : []), ...(handlers.post ? ["POST"] : [])];
  app.all(path, (c) => {
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    const handler = method === "GET" ? handlers.get : method === "POST" ? handlers.post : undefined;
    if (handler) return handler(c);
    c.header("Allow", allowed.join(", "));
    return errorPage(c, 405, `${c.req.method} is not served here`);
  });
}

/** Answers a page. */
export async function render(c: ConsoleContext, view: View, status: ContentfulStatusCode = 200) {
  return c.html(`<!doctype html>\n${await view}`, status);
}

/** Answers a page that runs the console's own scripts (served under its static path, none inline). */
export async function renderWithScripts(c: ConsoleContext, view: View) {
  c.set("scripts", true);
  return render(c, view);
}

/** A failure's page, inside the console when the request has a session. */
export function errorPage(c: ConsoleContext, status: ContentfulStatusCode, message: string) {
  const session = c.get("session") as ConsoleSession | undefined;
  return render(c, ErrorView({ status, message, session: session && { csrf: session.csrf } }), status);
}

/** The session as the layout reads it; the message a form left is shown once. */
export function pageSession(c: ConsoleContext): PageSession {
  const session = c.get("session");
  const flash = session.flash;
  session.flash = undefined;
  return { csrf: session.csrf, flash };
}

/** After a form: back to a page (303, so reloading it does not post again), with a message for it. */
export function redirectWith(c: ConsoleContext, location: string, flash: Flash): Response {
  c.get("session").flash = flash;
  return c.redirect(location, 303);
}

/** A path with its query, leaving out empty values. */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** A tenant named by its domain, as the pages that show one take it. */
export const tenantSchema = z.string().min(1).max(253);

/** Values checked by a schema, a broken one refused (400) naming its field (`root`: the value's own name). */
export function checked<T extends z.ZodType>(schema: T, value: unknown, root = "value"): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new PlatformError(ErrorCode.InvalidArgument, firstIssueMessage(parsed.error.issues, { root }));
  return parsed.data;
}

/** The sort key of the page a list's `after` asks for (null: the first), checked as the admin API does. */
export function pageKey(c: ConsoleContext, parts: number): string[] | null {
  const { after } = checked(pageQuery(parts), { after: c.req.query("after") || undefined });
  return afterKey(after, parts);
}
