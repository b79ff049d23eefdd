import { isPlatformError } from "../contracts/errors.ts";
import { Grant } from "../contracts/scopes.ts";
import type { Queryable } from "../runtime/database.ts";
import { newSecret } from "../runtime/secrets.ts";
import { type Application, applicationById } from "./application-store.ts";
import {
  deleteAuthorizationRequest,
  insertAuthorizationRequest,
  type PendingRequest,
  pendingAuthorizationRequest,
  setAuthorizationRequestUser,
} from "./authorization-request-store.ts";
import { type AuthorizationServer, allowsGrant, grantableScopes } from "./authorization-server.ts";
import { userById } from "./user-store.ts";

/**
 * The authorization endpoint's steps (RFC 6749 §4.1 and §4.2): a request checked and kept while
 * the user signs in, then consents; the answer goes back to a registered redirect URI, with a code
 * or (for an application allowed the implicit grant) a token. Each step says which page or
 * redirect answers it; the pages and the cookie that binds a request to its browser are the edge's.
 */

/** How long a request waits for the user's sign-in and consent. */
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 600;

/** Where an answer goes back to: the redirect URI, and whether in the query (code) or fragment (token). */
export type RedirectTarget = Pick<PendingRequest, "redirectUri" | "state" | "responseType">;

/** An answer by redirect, with the result (`code`, the token, or `error` and `error_description`). */
export interface AuthorizationRedirect {
  page: "redirect";
  to: RedirectTarget;
  params: Record<string, string>;
}

/** What the request's page shows: the sign-in page (again, saying why, after a failed sign-in), or the consent page. */
export type AuthorizationStep =
  | { page: "error"; message: string }
  | AuthorizationRedirect
  | { page: "sign-in"; requestId: string; applicationName: string; error?: string }
  | { page: "consent"; requestId: string; applicationName: string; userName: string; scopes: string[] };

/** The authorization endpoint's query, as the browser sent it. */
export interface AuthorizationQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

function redirect(to: RedirectTarget, params: Record<string, string>): AuthorizationRedirect {
  return { page: "redirect", to, params };
}

/**
 * Checks a request and keeps it for the sign-in page. What cannot be answered by redirect (an
 * unknown or disabled client, a redirect URI it did not register) is an error page: the browser is
 * never sent to an address the application did not register.
 */
export async function openAuthorizationRequest(
  sql: Queryable,
  q: AuthorizationQuery,
): Promise<AuthorizationStep> {
  const application = q.client_id ? await applicationById(sql, q.client_id) : undefined;
  if (!application || application.disabled) return { page: "error", message: "unknown client_id" };
  const redirectUri =
    q.redirect_uri ?? (application.redirectUris.length === 1 ? application.redirectUris[0] : undefined);
  if (!redirectUri || !application.redirectUris.includes(redirectUri)) {
    return { page: "error", message: "redirect_uri is not registered for this application" };
  }
  const responseType = q.response_type;
  const base = { redirectUri, state: q.state ?? null };
  if (responseType !== "code" && !(responseType === "token" && application.implicitAllowed)) {
    return redirect(
      { ...base, responseType: "code" },
      {
        error: "unsupported_response_type",
        error_description: `response_type ${responseType ?? "(missing)"} is not allowed for this application`,
      },
    );
  }
  const to: RedirectTarget = { ...base, responseType };
  const grant = responseType === "token" ? Grant.Implicit : Grant.AuthorizationCode;
  if (!allowsGrant(application, grant)) {
    return redirect(to, {
      error: "unauthorized_client",
      error_description: `this application may not use the ${grant} grant`,
    });
  }
  let scopes: string[];
  try {
    scopes = grantableScopes(application, grant, q.scope);
  } catch (error) {
    return redirect(to, {
      error: "invalid_scope",
      error_description: isPlatformError(error) ? error.message : "invalid scope",
    });
  }
  const challengeError = pkceError(application, responseType, q.code_challenge, q.code_challenge_method);
  if (challengeError) return redirect(to, { error: "invalid_request", error_description: challengeError });
  const id = newSecret();
  await insertAuthorizationRequest(
    sql,
    {
      id,
      applicationId: application.id,
      responseType,
      redirectUri,
      scopes,
      state: q.state ?? null,
      codeChallenge: q.code_challenge ?? null,
    },
    AUTHORIZATION_REQUEST_TTL_SECONDS,
  );
  return { page: "sign-in", requestId: id, applicationName: application.name };
}

/**
 * The sign-in page's form: the account is checked under the sign-in limits; on success the request
 * records who signed in and the consent page follows. `requestId` undefined: none the browser holds.
 */
export async function signInForAuthorization(
  deps: { sql: Queryable; server: AuthorizationServer },
  requestId: string | undefined,
  form: { username: string; password: string; address: string },
): Promise<AuthorizationStep> {
  const { sql, server } = deps;
  const request = requestId ? await pendingAuthorizationRequest(sql, requestId) : undefined;
  if (!request)
    return { page: "error", message: "this sign-in page has expired; start again from the application" };
  const application = (await applicationById(sql, request.applicationId))!;
  const again = { page: "sign-in", requestId: request.id, applicationName: application.name } as const;
  let user: Awaited<ReturnType<AuthorizationServer["authenticateWithLimits"]>>;
  try {
    user =
      form.username && form.password
        ? await server.authenticateWithLimits(application, form.username, form.password, form.address)
        : undefined;
  } catch (error) {
    return { ...again, error: isPlatformError(error) ? error.message : "sign-in failed" };
  }
  if (!user) return { ...again, error: "Wrong account or password." };
  await setAuthorizationRequestUser(sql, request.id, user.id);
  return {
    page: "consent",
    requestId: request.id,
    applicationName: application.name,
    userName: user.name,
    scopes: request.scopes,
  };
}

/**
 * The consent page's form: the request is used up whatever the decision; allowed, the application
 * gets a code (or, for the implicit grant, a token) for the signed-in account, unless it was disabled since.
 */
export async function decideAuthorization(
  deps: { sql: Queryable; server: AuthorizationServer },
  requestId: string | undefined,
  allowed: boolean,
): Promise<AuthorizationStep> {
  const { sql, server } = deps;
  const request = requestId ? await pendingAuthorizationRequest(sql, requestId) : undefined;
  if (!request?.userId)
    return { page: "error", message: "this consent page has expired; start again from the application" };
  await deleteAuthorizationRequest(sql, request.id);
  if (!allowed)
    return redirect(request, { error: "access_denied", error_description: "the user denied access" });
  const application = (await applicationById(sql, request.applicationId))!;
  const user = await userById(sql, request.userId);
  if (!user || user.disabled)
    return redirect(request, { error: "access_denied", error_description: "account disabled" });
  if (request.responseType === "token") {
    const tokens = await server.userTokens(application, user, Grant.Implicit, request.scopes);
    return redirect(request, {
      access_token: tokens.access_token,
      token_type: tokens.token_type,
      expires_in: String(tokens.expires_in),
      scope: request.scopes.join(" "),
    });
  }
  const code = await server.issueCode({
    applicationId: application.id,
    userId: user.id,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
  });
  return redirect(request, { code });
}

/** PKCE: S256 only; required of public clients (no secret), which cannot otherwise prove who they are. */
function pkceError(
  application: Application,
  responseType: string,
  challenge: string | undefined,
  method: string | undefined,
): string | undefined {
  if (responseType !== "code") return undefined;
  if (challenge === undefined) {
    return application.secretHash === null ? "public clients must send a PKCE code_challenge" : undefined;
  }
  if (method !== "S256") return "code_challenge_method must be S256";
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return "code_challenge must be a base64url SHA-256 digest";
  return undefined;
}
