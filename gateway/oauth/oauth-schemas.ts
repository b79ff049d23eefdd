import { z } from "@hono/zod-openapi";
import type { ErrorStatus } from "../error-responses.ts";

/** The OAuth2 endpoints' forms and answers, as documented and validated. */

// A form read from multipart escapes the gateway's NUL check, and Postgres keeps no NUL in text.
const field = z
  .string()
  .max(4096)
  .refine((value) => !value.includes("\0"), "must not contain NUL (U+0000) characters")
  .optional();

export const tokenRequestSchema = z
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

export const tokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int(),
    scope: z.string().openapi({ description: "the scopes granted, names separated by spaces" }),
    refresh_token: z.string().optional(),
  })
  .openapi("TokenResponse");

/** HTTP Basic, or (an empty requirement) the credentials in the form, or none for a public client. */
export const clientAuthentication: Record<string, string[]>[] = [{ client: [] }, {}];

export const tokenParameterSchema = z
  .object({
    token: field,
    token_type_hint: field,
    client_id: field,
    client_secret: field,
  })
  .openapi("TokenParameter");

export const introspectionSchema = z
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
export const tokenParameterErrors = {
  errors: [400, 401, 413, 415, 503] satisfies ErrorStatus[],
  meanings: {
    400: "invalid_request, or unauthorized_client (a client without the introspect scope)",
    401: "invalid_client: the client could not be authenticated, or its application is disabled",
  },
};

export const jwksSchema = z
  .object({ keys: z.array(z.object({ kty: z.string(), kid: z.string().optional() }).loose()) })
  .openapi("JsonWebKeySet", { description: "RFC 7517 JWK set" });

export const metadataSchema = z
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
