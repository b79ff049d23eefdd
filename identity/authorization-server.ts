import { createHash, randomUUID } from "node:crypto";
import {
  type ApplicationGrant,
  Grant,
  parseScopeParameter,
  scopeNamed,
  tokenKindOf,
} from "../contracts/scopes.ts";
import type { Config } from "../runtime/config.ts";
import type { Sql } from "../runtime/database.ts";
import { hashSecret, newSecret, sameText, secretMatches } from "../runtime/secrets.ts";
import type { AccessTokens } from "./access-tokens.ts";
import type { ApplicationCache } from "./application-cache.ts";
import type { Application } from "./application-store.ts";
import {
  insertAuthorizationCode,
  setAuthorizationCodeFamily,
  useAuthorizationCode,
} from "./authorization-code-store.ts";
import { invalidClient, oauthError } from "./oauth-errors.ts";
import type { RefreshTokens } from "./refresh-tokens.ts";
import type { SignInLimits } from "./sign-in-limits.ts";
import { tenantByDomain } from "./tenant-store.ts";
import { authenticateUser, tenantsWithAccount, type User, userById } from "./user-store.ts";

/** The token response of spec 000, with the scopes granted (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string | undefined;
  usedHeader: boolean;
}

/** The token endpoint's form: the grant and what it takes. */
export interface TokenForm {
  grant_type?: string | undefined;
  scope?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  refresh_token?: string | undefined;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  code_verifier?: string | undefined;
}

export interface AuthorizationServerDeps {
  sql: Sql;
  applications: ApplicationCache;
  config: Config;
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokens;
  signInLimits: SignInLimits;
}

/** Which scopes a grant may carry: approved for the application and allowed for the grant type. */
export function grantableScopes(app: Application, grant: Grant, requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === "") {
    // Spec 000: an omitted scope means every client-credentials scope the application owns; for
    // the other grants, every approved scope that grant may carry; each once, however often the
    // application's list names it.
    return [...new Set(app.scopes)].filter((name) => scopeNamed(name)?.grants.includes(grant));
  }
  const parsed = parseScopeParameter(requested);
  if (!parsed.ok) throw oauthError("invalid_scope", parsed.error);
  for (const name of parsed.names) {
    if (!app.scopes.includes(name))
      throw oauthError("invalid_scope", `scope ${name} is not approved for this application`);
    if (!scopeNamed(name)!.grants.includes(grant)) {
      throw oauthError("invalid_scope", `scope ${name} cannot be granted through ${grant}`);
    }
  }
  return parsed.names;
}

/** Whether the application may use `grant`: those its `grants` list, or any when it lists none. */
export function allowsGrant(app: Application, grant: ApplicationGrant): boolean {
  return app.grants === null || app.grants.includes(grant);
}

function requireGrant(app: Application, grant: ApplicationGrant): void {
  if (!allowsGrant(app, grant))
    throw oauthError("unauthorized_client", `this application may not use the ${grant} grant`);
}

export class AuthorizationServer {
  constructor(private readonly deps: AuthorizationServerDeps) {}

  /**
   * The application behind the credentials. A public client (no secret) authenticates with its id
   * alone, and only where `allowPublic` says so: the authorization code grant (with PKCE), and the
   * refresh of what that issued (RFC 6749 §6), which rotation and family revocation guard. That an
   * application is disabled is said only once its credentials checked out: to anyone else it is
   * as unknown as an application that does not exist.
   */
  async authenticateClient(credentials: ClientCredentials, allowPublic = false): Promise<Application> {
    const app = await this.deps.applications.get(credentials.clientId);
    if (!app) throw invalidClient(credentials.usedHeader);
    const authenticated =
      app.secretHash === null
        ? allowPublic && credentials.clientSecret === undefined
        : credentials.clientSecret !== undefined && secretMatches(credentials.clientSecret, app.secretHash);
    if (!authenticated) throw invalidClient(credentials.usedHeader);
    if (app.disabled) throw invalidClient(credentials.usedHeader, "the application is disabled");
    return app;
  }

  /**
   * The token endpoint (RFC 6749 §3.2): the grant the form names, for the client the credentials
   * authenticate; a public client only for the authorization code grant and its refreshes.
   */
  async token(credentials: ClientCredentials, form: TokenForm, address: string): Promise<TokenResponse> {
    const grantType = form.grant_type;
    if (!grantType) throw oauthError("invalid_request", "grant_type is required");
    if (grantType === Grant.ClientCredentials)
      return this.clientCredentials(await this.authenticateClient(credentials), form.scope);
    if (grantType === Grant.Password)
      return this.password(await this.authenticateClient(credentials), form, address);
    if (grantType === "refresh_token")
      return this.refresh(await this.authenticateClient(credentials, true), form);
    if (grantType === Grant.AuthorizationCode)
      return this.authorizationCode(await this.authenticateClient(credentials, true), form);
    throw oauthError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
  }

  async clientCredentials(app: Application, scope: string | undefined): Promise<TokenResponse> {
    requireGrant(app, Grant.ClientCredentials);
    if (app.secretHash === null)
      throw oauthError("unauthorized_client", "public clients cannot use client_credentials");
    const scopes = grantableScopes(app, Grant.ClientCredentials, scope);
    return this.accessTokenResponse(app, {
      clientId: app.id,
      userId: undefined,
      tenantId: app.tenantId ?? undefined,
      grant: Grant.ClientCredentials,
      kind: "sys",
      scopes,
    });
  }

  async password(
    app: Application,
    params: { username?: string; password?: string; scope?: string },
    address: string,
  ): Promise<TokenResponse> {
    requireGrant(app, Grant.Password);
    if (!params.username || !params.password)
      throw oauthError("invalid_request", "username and password are required");
    if (app.secretHash === null)
      throw oauthError("unauthorized_client", "public clients cannot use the password grant");
    const scopes = grantableScopes(app, Grant.Password, params.scope);
    const user = await this.authenticateWithLimits(app, params.username, params.password, address);
    if (!user) throw oauthError("invalid_grant", "wrong username or password");
    return this.userTokens(app, user, Grant.Password, scopes);
  }

  async refresh(
    app: Application,
    params: { refresh_token?: string; scope?: string },
  ): Promise<TokenResponse> {
    requireGrant(app, "refresh_token");
    if (!params.refresh_token) throw oauthError("invalid_request", "refresh_token is required");
    const rotation = await this.deps.refreshTokens.rotate(params.refresh_token, app.id);
    if (!rotation.ok) throw oauthError("invalid_grant", rotation.reason);
    const { grant } = rotation;
    if (grant.userId) await this.userOrFail(grant.userId);
    // A token keeps no more than the application is approved for now.
    let scopes = grant.scopes.filter((name) => app.scopes.includes(name));
    if (params.scope !== undefined && params.scope.trim() !== "") {
      const parsed = parseScopeParameter(params.scope);
      if (!parsed.ok) throw oauthError("invalid_scope", parsed.error);
      const extra = parsed.names.filter((name) => !scopes.includes(name));
      if (extra.length > 0) throw oauthError("invalid_scope", `scope ${extra.join(", ")} was not granted`);
      scopes = parsed.names;
    }
    const response = await this.accessTokenResponse(
      app,
      {
        clientId: app.id,
        userId: grant.userId ?? undefined,
        tenantId: grant.tenantId ?? undefined,
        grant: grant.grantType,
        kind: tokenKindOf(grant.grantType),
        scopes,
      },
      grant.familyId,
    );
    response.refresh_token = await this.deps.refreshTokens.issue({ ...grant, scopes });
    return response;
  }

  async authorizationCode(
    app: Application,
    params: { code?: string; redirect_uri?: string; code_verifier?: string },
  ): Promise<TokenResponse> {
    requireGrant(app, Grant.AuthorizationCode);
    if (!params.code) throw oauthError("invalid_request", "code is required");
    const { sql } = this.deps;
    const hash = hashSecret(params.code);
    const code = await useAuthorizationCode(sql, hash);
    if (!code || code.applicationId !== app.id)
      throw oauthError("invalid_grant", "unknown authorization code");
    if (code.used) {
      // A code presented twice was intercepted or replayed: what it issued is revoked.
      if (code.familyId) await this.deps.refreshTokens.revokeFamily(code.familyId);
      throw oauthError("invalid_grant", "authorization code already used");
    }
    if (code.expired) throw oauthError("invalid_grant", "authorization code expired");
    if (params.redirect_uri !== code.redirectUri)
      throw oauthError("invalid_grant", "redirect_uri does not match");
    if (code.codeChallenge !== null) {
      if (!params.code_verifier) throw oauthError("invalid_grant", "code_verifier is required");
      const challenge = createHash("sha256").update(params.code_verifier).digest("base64url");
      if (!sameText(challenge, code.codeChallenge))
        throw oauthError("invalid_grant", "code_verifier does not match");
    }
    const user = await this.userOrFail(code.userId);
    const familyId = randomUUID();
    await setAuthorizationCodeFamily(sql, hash, familyId);
    return this.userTokens(app, user, Grant.AuthorizationCode, code.scopes, familyId);
  }

  /** An access token; one of a refresh-token family is counted among the family's before it is handed out. */
  private async accessTokenResponse(
    app: Application,
    claims: Parameters<AccessTokens["issue"]>[0],
    familyId?: string,
  ): Promise<TokenResponse> {
    const lifetime = this.deps.accessTokens.lifetimeFor(app);
    const issued = await this.deps.accessTokens.issueWithId(claims, lifetime);
    if (familyId) await this.deps.refreshTokens.recordAccessToken(familyId, app.id, issued);
    return {
      access_token: issued.token,
      token_type: "bearer",
      expires_in: lifetime,
      scope: claims.scopes.join(" "),
    };
  }

  /** Access (and refresh) tokens for a user, bound to the application's tenant or the user's. */
  async userTokens(
    app: Application,
    user: User,
    grant: Grant,
    scopes: string[],
    familyId?: string,
  ): Promise<TokenResponse> {
    const refreshable = grant !== Grant.Implicit && allowsGrant(app, "refresh_token");
    // A code's exchange begins its family before; a password sign-in with a refresh token begins one here.
    const family = familyId ?? (refreshable ? randomUUID() : undefined);
    const response = await this.accessTokenResponse(
      app,
      { clientId: app.id, userId: user.id, tenantId: user.tenantId, grant, kind: "user", scopes },
      family,
    );
    if (refreshable) {
      response.refresh_token = await this.deps.refreshTokens.issue({
        familyId: family,
        applicationId: app.id,
        userId: user.id,
        tenantId: user.tenantId,
        grantType: grant,
        scopes,
      });
    }
    return response;
  }

  /**
   * Checks a campus account's password under the per-account and per-address limits. The account is
   * looked up in the application's tenant, or for a global application as `account@domain`, or in
   * the only tenant that has it.
   */
  async authenticateWithLimits(
    app: Application,
    username: string,
    password: string,
    address: string,
  ): Promise<User | undefined> {
    const { sql, signInLimits } = this.deps;
    const target = await resolveAccount(sql, app, username);
    const attempt = { tenantId: target?.tenantId, account: target?.account ?? username, address };
    const refusal = await signInLimits.begin(attempt);
    if (refusal) {
      const which = refusal.lockedOut === "account" ? "for this account" : "from this address";
      throw oauthError(
        "invalid_grant",
        `too many failed attempts ${which}; try again in ${refusal.seconds} s`,
      );
    }
    // An account no tenant has costs the password check a real one does: the time tells nothing.
    const user = await authenticateUser(sql, target?.tenantId, attempt.account, password);
    if (!user) {
      await signInLimits.failed(attempt);
      return undefined;
    }
    await signInLimits.succeeded(attempt);
    return user;
  }

  private async userOrFail(userId: string): Promise<User> {
    const user = await userById(this.deps.sql, userId);
    if (!user || user.disabled) throw oauthError("invalid_grant", "the account is disabled");
    return user;
  }

  /** A new authorization code for a consented request; only its hash is stored. */
  async issueCode(request: {
    applicationId: string;
    userId: string;
    redirectUri: string;
    scopes: string[];
    codeChallenge: string | null;
  }): Promise<string> {
    const code = newSecret();
    await insertAuthorizationCode(
      this.deps.sql,
      { hash: hashSecret(code), ...request },
      this.deps.config.oauth.authorizationCodeTtlSeconds,
    );
    return code;
  }
}

/**
 * The tenant and account a username names: the application's tenant's; for a global application
 * `account@domain`, or a bare account that exactly one tenant has (one that several have must be
 * given with its domain).
 */
async function resolveAccount(
  sql: Sql,
  app: Application,
  username: string,
): Promise<{ tenantId: string; account: string } | undefined> {
  if (app.tenantId) return { tenantId: app.tenantId, account: username };
  const at = username.lastIndexOf("@");
  if (at > 0) {
    const tenant = await tenantByDomain(sql, username.slice(at + 1));
    if (tenant) return { tenantId: tenant.id, account: username.slice(0, at) };
  }
  const tenants = await tenantsWithAccount(sql, username, 2);
  if (tenants.length > 1)
    throw oauthError(
      "invalid_grant",
      `several tenants have the account ${username}: sign in as ${username}@<the tenant's domain>`,
    );
  return tenants.length === 1 ? { tenantId: tenants[0]!, account: username } : undefined;
}
