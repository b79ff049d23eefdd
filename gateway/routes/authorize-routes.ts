import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import {
  AUTHORIZATION_REQUEST_TTL_SECONDS,
  type AuthorizationStep,
  decideAuthorization,
  openAuthorizationRequest,
  type RedirectTarget,
  signInForAuthorization,
} from "../../identity/authorization-requests.ts";
import { clientAddress } from "../client-address.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { consentPage, errorPage, loginPage } from "../oauth/pages.ts";
import { serve } from "../operation.ts";

const REQUEST_COOKIE = "op_authz";
const FIELD_LIMIT = 4096;

/** Sends the browser back to the client with the result in the query (code) or fragment (token). */
function redirectWith(c: Context<GatewayEnv>, request: RedirectTarget, params: Record<string, string>) {
  const values = new URLSearchParams(params);
  if (request.state !== null) values.set("state", request.state);
  const url = new URL(request.redirectUri);
  if (request.responseType === "token") url.hash = values.toString();
  else for (const [key, value] of values) url.searchParams.set(key, value);
  c.header("Cache-Control", "no-store");
  return c.redirect(url.toString(), 302);
}

function html(c: Context<GatewayEnv>, body: string, status: 200 | 400 = 200) {
  c.header("Cache-Control", "no-store");
  c.header("X-Frame-Options", "DENY");
  // Neither the page's address (client, redirect URI, state, PKCE challenge) nor the platform's
  // origin reaches the site the browser goes to next, the client's redirect URI included.
  c.header("Referrer-Policy", "no-referrer");
  // No form-action: Chromium applies it to the redirect that follows the consent form.
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  );
  return c.html(body, status);
}

const page = { "text/html": { schema: z.string() } };
const redirect = {
  description:
    "back to the redirect URI: `code` (in the query) or `access_token` (in the fragment) and `state`; or `error` and `error_description`",
  headers: z.object({ location: z.string().openapi({ description: "the redirect URI with the result" }) }),
};
/**
 * The pages answer what they cannot do as a page, or, once the redirect URI is known, by redirecting;
 * they are documented, not validated by the framework: a browser is answered with pages, never an envelope.
 */
const pageOperation = { surface: "oauth", errors: [413, 503], ownInput: "all" } as const;
const errorPageAnswer = {
  description: "an error page: unknown client, unregistered redirect URI, expired request",
  content: page,
};
const tags = ["OAuth2: authorization pages"];
/** The pending request is bound to the browser that opened it. */
const cookies = z.object({
  [REQUEST_COOKIE]: z
    .string()
    .openapi({ description: "set by GET /oauth2/authorize: the pending request's id" }),
});

/**
 * The authorization endpoint: a login page, then a consent page listing what the application asks
 * for, then a redirect to the registered redirect URI with a code (or, for an application allowed
 * the implicit grant, a token). The pending request lives in Postgres and is bound to the browser
 * by a cookie, so a leaked request id is useless elsewhere.
 */
export function authorizeRoutes(deps: GatewayUses<"config" | "db" | "oauth">) {
  const { sql } = deps.db;
  const steps = { sql, server: deps.oauth.server };
  const app = new OpenAPIHono<GatewayEnv>();

  /** The pending request's id, when the browser that opened it sends it. */
  function requestId(c: Context<GatewayEnv>, form: Record<string, unknown>): string | undefined {
    const id = typeof form.request === "string" ? form.request : undefined;
    if (!id || id.length > FIELD_LIMIT || getCookie(c, REQUEST_COOKIE) !== id) return undefined;
    return id;
  }

  serve(app, {
    method: "get",
    path: "/authorize",
    operationId: "authorize",
    tags,
    summary: "The authorization endpoint: the sign-in page, for the authorization code or implicit grant",
    description:
      "A browser opens it; the pages that follow (sign in, consent) end with a redirect to `redirect_uri`. A public client must send a PKCE `code_challenge` (S256).",
    request: {
      query: z.object({
        response_type: z.enum(["code", "token"]).openapi({
          description: "`token` (the implicit grant) only for applications allowed it",
        }),
        client_id: z.string().max(4096),
        redirect_uri: z
          .string()
          .max(4096)
          .optional()
          .openapi({ description: "one the application registered; optional when it registered one only" }),
        scope: z.string().max(4096).optional().openapi({ description: "scope names separated by spaces" }),
        state: z.string().max(4096).optional(),
        code_challenge: z
          .string()
          .max(4096)
          .optional()
          .openapi({ description: "BASE64URL(SHA-256(verifier))" }),
        code_challenge_method: z.enum(["S256"]).optional(),
      }),
    },
    responses: {
      200: {
        description: "the sign-in page (sets the cookie that binds the request to the browser)",
        content: page,
      },
      302: redirect,
      400: errorPageAnswer,
    },
    ...pageOperation,
    handle: async (c) => {
      const q = c.req.query();
      if (Object.values(q).some((value) => value.length > FIELD_LIMIT))
        return html(c, errorPage("request too large"), 400);
      const step = await openAuthorizationRequest(sql, q);
      if (step.page === "sign-in") {
        setCookie(c, REQUEST_COOKIE, step.requestId, {
          httpOnly: true,
          sameSite: "Lax",
          path: "/oauth2",
          maxAge: AUTHORIZATION_REQUEST_TTL_SECONDS,
          secure: deps.config.http.publicUrl.startsWith("https:"),
        });
      }
      return answer(c, step);
    },
  });

  serve(app, {
    method: "post",
    path: "/authorize/login",
    operationId: "signInForAuthorization",
    tags,
    summary: "The sign-in page's form: on success, the consent page",
    request: {
      cookies,
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: z.object({
              request: z.string().openapi({ description: "the pending request's id, from the page" }),
              username: z.string().max(256),
              password: z.string().max(1024),
            }),
          },
        },
      },
    },
    responses: {
      200: { description: "the consent page, or the sign-in page again saying why not", content: page },
      400: errorPageAnswer,
    },
    ...pageOperation,
    handle: async (c) => {
      const form = await readForm(c);
      if (!form)
        return html(
          c,
          errorPage("the sign-in form could not be read; start again from the application"),
          400,
        );
      const step = await signInForAuthorization(steps, requestId(c, form), {
        username: typeof form.username === "string" ? form.username.slice(0, 256) : "",
        password: typeof form.password === "string" ? form.password.slice(0, 1024) : "",
        address: clientAddress(c, deps.config.http.trustProxyHops),
      });
      return answer(c, step);
    },
  });

  serve(app, {
    method: "post",
    path: "/authorize/consent",
    operationId: "decideAuthorization",
    tags,
    summary: "The consent page's form: allow or deny, then back to the application",
    request: {
      cookies,
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: z.object({
              request: z.string().openapi({ description: "the pending request's id, from the page" }),
              decision: z.enum(["allow", "deny"]),
            }),
          },
        },
      },
    },
    responses: { 302: redirect, 400: errorPageAnswer },
    ...pageOperation,
    handle: async (c) => {
      const form = await readForm(c);
      if (!form)
        return html(
          c,
          errorPage("the consent form could not be read; start again from the application"),
          400,
        );
      const step = await decideAuthorization(steps, requestId(c, form), form.decision === "allow");
      if (step.page === "redirect") deleteCookie(c, REQUEST_COOKIE, { path: "/oauth2" });
      return answer(c, step);
    },
  });

  return app;
}

/** A step's page, or its redirect back to the application. */
function answer(c: Context<GatewayEnv>, step: AuthorizationStep) {
  switch (step.page) {
    case "error":
      return html(c, errorPage(step.message), 400);
    case "redirect":
      return redirectWith(c, step.to, step.params);
    case "sign-in":
      return html(c, loginPage(step));
    case "consent":
      return html(c, consentPage(step));
  }
}

/**
 * The fields of a page's form, or undefined when the body is not a form a browser sends: one that
 * cannot be parsed, or text with a NUL, which no field holds and Postgres would refuse.
 */
async function readForm(c: Context<GatewayEnv>): Promise<Record<string, unknown> | undefined> {
  const form = await c.req.parseBody().catch(() => undefined);
  if (!form) return undefined;
  const texts = Object.entries(form).flat();
  return texts.some((text) => typeof text === "string" && text.includes("\0")) ? undefined : form;
}
