import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { SCOPES } from "../../contracts/scopes.ts";
import type { ClientCredentials } from "../../identity/authorization-server.ts";
import { invalidClient } from "../../identity/oauth-errors.ts";
import { introspectToken, revokeClientToken } from "../../identity/token-introspection.ts";
import { clientAddress } from "../client-address.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { surface } from "../middleware/surface.ts";
import {
  clientAuthentication,
  introspectionSchema,
  jwksSchema,
  metadataSchema,
  tokenParameterErrors,
  tokenParameterSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from "../oauth/oauth-schemas.ts";
import { serve } from "../operation.ts";

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

export function oauthRoutes(deps: GatewayUses<"config" | "db" | "oauth">) {
  const { server, accessTokens } = deps.oauth;
  const issuer = deps.config.oauth.issuer;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use(surface("oauth"));

  serve(app, {
    surface: "oauth",
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
    },
    errors: [400, 401, 413, 415, 503],
    meanings: {
      400: "invalid_request, invalid_grant, invalid_scope, unauthorized_client or unsupported_grant_type",
      401: "invalid_client: the client could not be authenticated, or its application is disabled",
    },
    handle: async (c) => {
      const form = c.req.valid("form");
      const credentials = clientCredentials(c, form);
      const address = clientAddress(c, deps.config.http.trustProxyHops);
      const response = await server.token(credentials, form, address);
      noStore(c);
      return c.json(response, 200);
    },
  });

  serve(app, {
    surface: "oauth",
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
    },
    ...tokenParameterErrors,
    handle: async (c) => {
      const form = c.req.valid("form");
      const client = await server.authenticateClient(clientCredentials(c, form));
      const token = { token: form.token ?? "", hint: form.token_type_hint };
      const introspection = await introspectToken({ sql: deps.db.sql, ...deps.oauth, issuer }, client, token);
      noStore(c);
      return c.json(introspection, 200);
    },
  });

  serve(app, {
    surface: "oauth",
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
    },
    ...tokenParameterErrors,
    handle: async (c) => {
      const form = c.req.valid("form");
      const client = await server.authenticateClient(clientCredentials(c, form), true);
      await revokeClientToken({ db: deps.db, ...deps.oauth }, client, form.token ?? "");
      noStore(c);
      return c.body(null, 200);
    },
  });

  serve(app, {
    surface: "oauth",
    method: "get",
    path: "/jwks",
    operationId: "getJsonWebKeySet",
    tags: ["OAuth2"],
    summary:
      "The public keys access tokens are signed with, the retired ones included while tokens they signed live",
    responses: {
      200: { description: "the key set", content: { "application/json": { schema: jwksSchema } } },
    },
    handle: (c) => c.json(accessTokens.jwks() as z.infer<typeof jwksSchema>, 200),
  });

  return app;
}

/** RFC 8414's metadata, at its well-known address outside /oauth2. */
export function oauthMetadataRoutes(deps: GatewayUses<"config" | "db" | "oauth">) {
  const issuer = deps.config.oauth.issuer;
  const base = deps.config.http.publicUrl;
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "oauth",
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    operationId: "getAuthorizationServerMetadata",
    tags: ["OAuth2"],
    summary: "Authorization server metadata (RFC 8414): the endpoints, scopes, grants and methods supported",
    responses: {
      200: { description: "the metadata", content: { "application/json": { schema: metadataSchema } } },
    },
    handle: (c) =>
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
  });
  return app;
}
