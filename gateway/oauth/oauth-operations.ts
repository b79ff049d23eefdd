import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../error-responses.ts";

/** The OAuth2 endpoints as documented and validated: their forms, answers and errors. */

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

export const tokenRoute = createRoute({
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

export const introspectRoute = createRoute({
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

export const revokeRoute = createRoute({
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

export const jwksSchema = z
  .object({ keys: z.array(z.object({ kty: z.string(), kid: z.string().optional() }).loose()) })
  .openapi("JsonWebKeySet", { description: "RFC 7517 JWK set" });

export const jwksRoute = createRoute({
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

export const metadataRoute = createRoute({
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  operationId: "getAuthorizationServerMetadata",
  tags: ["OAuth2"],
  summary: "Authorization server metadata (RFC 8414): the endpoints, scopes, grants and methods supported",
  responses: {
    200: { description: "the metadata", content: { "application/json": { schema: metadataSchema } } },
  },
});
