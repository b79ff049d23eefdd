import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { Grant, SCOPES } from "../../contracts/scopes.ts";
import { revokeAccessToken } from "../../identity/access-control.ts";
import type { ClientCredentials, TokenResponse } from "../../identity/authorization-server.ts";
import { invalidClient, oauthError } from "../../identity/oauth-errors.ts";
import { userById } from "../../identity/user-store.ts";
import { clientAddress } from "../client-address.ts";
import { errorResponses } from "../error-responses.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { surface } from "../middleware/surface.ts";

// A form read from multipart escapes the gateway's NUL check, and Postgres keeps no NUL in text.
const field = z
  .string()
  .max(4096)
  .refine((value) => !value.includes("\0"), "must not contain NUL (U+0000) characters")
  .optional();

const tokenRequestSchema = z
  .object({
    grant_type: field.openapi({ example: "client_credentials" }),
    scope: field.openapi({
      description: "scope names separated by spaces, or the numeric sum of their bits",
    }),
    client_id: field,
    client_secret: field,
    username: field,
    password: field,
    refresh_token: field,
    code: field,
    redirect_uri: field,
    code_verifier: field,
  })
  .openapi("TokenRequest");

const tokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int(),
    scope: z.string().openapi({ description: "the scopes granted, names separated by spaces" }),
    refresh_token: z.string().optional(),
  })
  .openapi("TokenResponse");

/** HTTP Basic, or (an empty requirement) the credentials in the form, or none for a public client. */
const clientAuthentication: Record<string, string[]>[] = [{ client: [] }, {}];

const tokenRoute = createRoute({
  method: "post",
  path: "/token",
  operationId: "issueToken",
  tags: ["OAuth2"],
  summary: "Issue an access token (client_credentials, password, refresh_token, authorization_code)",
  description:
    "Client credentials by HTTP Basic (preferred) or in the form; when both are given the header is used.",
  security: clientAuthentication,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: tokenRequestSchema } } } },
  responses: {
    200: { description: "token issued", content: { "application/json": { schema: tokenResponseSchema } } },
    ...errorResponses("oauth", [400, 401, 413, 415, 503], {
      400: "invalid_request, invalid_grant, invalid_scope, unauthorized_client or unsupported_grant_type",
      401: "invalid_client: the client could not be authenticated, or its application is disabled",
    }),
  },
});

const tokenParameterSchema = z
  .object({
    token: field,
    token_type_hint: field,
    client_id: field,
    client_secret: field,
  })
  .openapi("TokenParameter");

const introspectionSchema = z
  .object({
    active: z.boolean(),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    username: z.string().optional(),
    token_type: z.string().optional(),
    exp: z.number().int().optional(),
    iat: z.number().int().optional(),
    sub: z.string().optional(),
    iss: z.string().optional(),
    jti: z.string().optional(),
  })
  .openapi("Introspection");

/** Answers of the introspection and revocation endpoints when the request or its client is refused. */
const tokenParameterErrors = errorResponses("oauth", [400, 401, 413, 415, 503], {
  400: "invalid_request, or unauthorized_client (a client without the introspect scope)",
  401: "invalid_client: the client could not be authenticated, or its application is disabled",
});

const introspectRoute = createRoute({
  method: "post",
  path: "/introspect",
  operationId: "introspectToken",
  tags: ["OAuth2"],
  summary: "Token introspection (RFC 7662); the client needs the introspect scope",
  description: "Client credentials by HTTP Basic or in the form, as for the token endpoint.",
  security: clientAuthentication,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: tokenParameterSchema } } } },
  responses: {
    200: {
      description: "the token's state",
      content: { "application/json": { schema: introspectionSchema } },
    },
    ...tokenParameterErrors,
  },
});

const revokeRoute = createRoute({
  method: "post",
  path: "/revoke",
  operationId: "revokeToken",
  tags: ["OAuth2"],
  summary:
    "Token revocation (RFC 7009): an access token, refused by every gateway within seconds; or a refresh token, every token rotated from the same grant and the access tokens they issued",
  description:
    "Client credentials by HTTP Basic or in the form; a public client (no secret) names itself with client_id.",
  security: clientAuthentication,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: tokenParameterSchema } } } },
  responses: {
    200: { description: "revoked, or not a token of this client" },
    ...tokenParameterErrors,
  },
});

const jwksSchema = z
  .object({ keys: z.array(z.object({ kty: z.string(), kid: z.string().optional() }).loose()) })
  .openapi("JsonWebKeySet", { description: "RFC 7517 JWK set" });

const jwksRoute = createRoute({
  method: "get",
  path: "/jwks",
  operationId: "getJsonWebKeySet",
  tags: ["OAuth2"],
  summary:
    "The public keys access tokens are signed with, the retired ones included while tokens they signed live",
  responses: {
    200: { description: "the key set", content: { "application/json": { schema: jwksSchema } } },
  },
});

const metadataSchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    jwks_uri: z.string(),
    introspection_endpoint: z.string(),
    revocation_endpoint: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    introspection_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
  })
  .openapi("AuthorizationServerMetadata", { description: "RFC 8414 authorization server metadata" });

const metadataRoute = createRoute({
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  operationId: "getAuthorizationServerMetadata",
  tags: ["OAuth2"],
  summary: "Authorization server metadata (RFC 8414): the endpoints, scopes, grants and methods supported",
  responses: {
    200: { description: "the metadata", content: { "application/json": { schema: metadataSchema } } },
  },
});

/** Client credentials from the Basic header, or else the form (RFC 6749 §2.3.1). */
function clientCredentials(
  c: Context<GatewayEnv>,
  form: { client_id?: string; client_secret?: string },
): ClientCredentials {
  const header = c.req.header("authorization");
  if (header?.toLowerCase().startsWith("basic ")) {
    const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidClient(true);
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      throw invalidClient(true);
    }
    // No application id holds a NUL, and Postgres would refuse to look one up.
    if (clientId.includes("\0")) throw invalidClient(true);
    return { clientId, clientSecret, usedHeader: true };
  }
  if (!form.client_id) throw invalidClient(false);
  return { clientId: form.client_id, clientSecret: form.client_secret, usedHeader: false };
}

function noStore(c: Context<GatewayEnv>): void {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
}

export function oauthRoutes(deps: GatewayDeps) {
  const { server, accessTokens, refreshTokens } = deps.oauth;
  const issuer = deps.config.oauth.issuer;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use(surface("oauth"));

  app.openapi(tokenRoute, async (c) => {
    const form = c.req.valid("form");
    const credentials = clientCredentials(c, form);
    const grantType = form.grant_type;
    if (!grantType) throw oauthError("invalid_request", "grant_type is required");
    let response: TokenResponse;
    if (grantType === Grant.ClientCredentials) {
      response = await server.clientCredentials(await server.authenticateClient(credentials), form.scope);
    } else if (grantType === Grant.Password) {
      const address = clientAddress(c, deps.config.http.trustProxyHops);
      response = await server.password(await server.authenticateClient(credentials), form, address);
    } else if (grantType === "refresh_token") {
      response = await server.refresh(await server.authenticateClient(credentials, true), form);
    } else if (grantType === Grant.AuthorizationCode) {
      response = await server.authorizationCode(await server.authenticateClient(credentials, true), form);
    } else {
      throw oauthError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
    }
    noStore(c);
    return c.json(response, 200);
  });

  app.openapi(introspectRoute, async (c) => {
    const form = c.req.valid("form");
    const client = await server.authenticateClient(clientCredentials(c, form));
    if (!client.scopes.includes("introspect")) {
      throw oauthError("unauthorized_client", "introspection needs the introspect scope");
    }
    noStore(c);
    const token = form.token ?? "";
    if (form.token_type_hint !== "refresh_token") {
      // A refused token is inactive, whatever the reason (RFC 7662 §2.2).
      const claims = token ? await accessTokens.verify(token) : undefined;
      if (typeof claims === "object") {
        const user = claims.userId ? await userById(deps.db.sql, claims.userId) : undefined;
        return c.json(
          {
            active: true,
            scope: claims.scopes.join(" "),
            client_id: claims.clientId,
            ...(user ? { username: user.account } : {}),
            token_type: "bearer",
            exp: claims.expiresAt,
            iat: claims.issuedAt,
            sub: claims.userId ?? claims.clientId,
            iss: issuer,
            jti: claims.jti,
          },
          200,
        );
      }
    }
    const refresh = token ? await refreshTokens.active(token) : undefined;
    if (refresh) {
      return c.json(
        {
          active: true,
          scope: refresh.scopes.join(" "),
          client_id: refresh.applicationId,
          token_type: "refresh_token",
          exp: Math.floor(refresh.expiresAt.getTime() / 1000),
          iat: Math.floor(refresh.createdAt.getTime() / 1000),
          sub: refresh.userId ?? refresh.applicationId,
          iss: issuer,
        },
        200,
      );
    }
    return c.json({ active: false }, 200);
  });

  app.openapi(revokeRoute, async (c) => {
    const form = c.req.valid("form");
    const client = await server.authenticateClient(clientCredentials(c, form), true);
    // An access token is refused by every gateway until it expires; a refresh token's family is
    // revoked with the access tokens it issued (RFC 7009 §2.1). Another client's token, or no token
    // at all, is answered the same, changing nothing.
    const token = form.token ?? "";
    // Access tokens are JWTs and refresh tokens opaque: the hint is not needed to tell them apart.
    const access = token ? await accessTokens.signedClaims(token) : undefined;
    if (access) {
      if (access.clientId === client.id) await revokeAccessToken(deps.db, access);
    } else if (token) {
      await refreshTokens.revoke(token, client.id);
    }
    noStore(c);
    return c.body(null, 200);
  });

  app.openapi(jwksRoute, (c) => c.json(accessTokens.jwks() as z.infer<typeof jwksSchema>, 200));

  return app;
}

/** RFC 8414's metadata, at its well-known address outside /oauth2. */
export function oauthMetadataRoutes(deps: GatewayDeps) {
  const issuer = deps.config.oauth.issuer;
  const base = deps.config.http.publicUrl;
  return new OpenAPIHono<GatewayEnv>().openapi(metadataRoute, (c) =>
    c.json(
      {
        issuer,
        authorization_endpoint: `${base}/oauth2/authorize`,
        token_endpoint: `${base}/oauth2/token`,
        jwks_uri: `${base}/oauth2/jwks`,
        introspection_endpoint: `${base}/oauth2/introspect`,
        revocation_endpoint: `${base}/oauth2/revoke`,
        scopes_supported: SCOPES.map((scope) => scope.name),
        response_types_supported: ["code", "token"],
        response_modes_supported: ["query", "fragment"],
        grant_types_supported: [
          "authorization_code",
          "client_credentials",
          "password",
          "refresh_token",
          "implicit",
        ],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
        introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
        code_challenge_methods_supported: ["S256"],
      },
      200,
    ),
  );
}
