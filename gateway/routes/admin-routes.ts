import { OpenAPIHono, z } from "@hono/zod-openapi";
import { bootstrapSchema } from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { rotateSigningKey } from "../../identity/access-tokens.ts";
import { newApplicationSecret } from "../../identity/application-admin.ts";
import { applyBootstrap, resolveSecretVariables } from "../../runtime/bootstrap.ts";
import { ConfigError } from "../../runtime/config.ts";
import { missingSealError, withdrawSeal } from "../../seals/seal-service.ts";
import { bootstrapEntries } from "../bootstrap-sections.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const appliedSchema = z.object({ applied: z.literal(true) }).openapi("BootstrapApplied");
const rotatedSchema = z.object({ rotated: z.literal(true) }).openapi("SigningKeyRotated");
const withdrawnSchema = z.object({ withdrawn: z.literal(true) }).openapi("SealWithdrawn");
const secretSchema = z.object({ id: z.string(), secret: z.string() }).openapi("ApplicationSecret");

/** The operators' API: the bootstrap document applied on demand, and application secrets. */
export function adminRoutes(deps: GatewayUses<"db" | "log" | "oauth" | "seals">) {
  const { seals } = deps;
  const app = new OpenAPIHono<GatewayEnv>();

  serve(app, {
    surface: "platform",
    method: "put",
    path: "/bootstrap",
    operationId: "applyBootstrap",
    tags: ["Admin"],
    summary: "Create or update tenants, applications and users, as the bootstrap file does",
    security: [{ admin: [] }],
    request: { body: { content: { "application/json": { schema: bootstrapSchema } }, required: true } },
    responses: {
      200: { description: "applied", content: { "application/json": { schema: appliedSchema } } },
    },
    errors: [400, 413, 415, 503],
    meanings: {
      400: "the document breaks its schema, or names what does not exist",
    },
    operatorToken: true,
    handle: async (c) => {
      try {
        const bootstrap = resolveSecretVariables(c.req.valid("json"), "bootstrap");
        await applyBootstrap(deps.db.sql, bootstrap, deps.log, "all", bootstrapEntries);
        seals.clear();
        await deps.db.changes.announce({ kind: "configuration" });
      } catch (error) {
        if (error instanceof ConfigError) throw new PlatformError(ErrorCode.InvalidArgument, error.message);
        throw error;
      }
      return c.json({ applied: true as const }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "post",
    path: "/applications/{id}/secret",
    operationId: "rotateApplicationSecret",
    tags: ["Admin"],
    summary: "Give an application a new secret; the answer is the only place it is shown",
    security: [{ admin: [] }],
    request: { params: z.object({ id: z.string().max(64) }) },
    responses: {
      200: { description: "the new secret", content: { "application/json": { schema: secretSchema } } },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such application" },
    operatorToken: true,
    handle: async (c) => {
      const { id } = c.req.valid("param");
      const secret = await newApplicationSecret(deps.db, id);
      if (!secret) throw new PlatformError(ErrorCode.NotFound, `no application ${id}`);
      c.header("Cache-Control", "no-store");
      return c.json({ id, secret }, 200);
    },
  });
  serve(app, {
    surface: "platform",
    method: "post",
    path: "/signing-keys/rotate",
    operationId: "rotateSigningKey",
    tags: ["Admin"],
    summary: "Retire the token signing key and make a new one; tokens already issued keep working",
    security: [{ admin: [] }],
    responses: {
      200: { description: "rotated", content: { "application/json": { schema: rotatedSchema } } },
    },
    errors: [503],
    operatorToken: true,
    handle: async (c) => {
      await rotateSigningKey(deps.db.sql);
      await deps.oauth.accessTokens.reload();
      return c.json({ rotated: true as const }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "delete",
    path: "/seals/{code}",
    operationId: "withdrawSeal",
    tags: ["Admin"],
    summary:
      "Withdraw a seal (a tenant's with `tenant`, else the platform-wide one); seals are added with PUT /admin/bootstrap",
    security: [{ admin: [] }],
    request: {
      params: z.object({ code: z.string().max(64) }),
      query: z.object({ tenant: z.string().max(253).optional() }),
    },
    responses: {
      200: { description: "withdrawn", content: { "application/json": { schema: withdrawnSchema } } },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such seal, or no such tenant" },
    operatorToken: true,
    handle: async (c) => {
      const { code } = c.req.valid("param");
      const { tenant } = c.req.valid("query");
      const withdrawn = await withdrawSeal({ sql: deps.db.sql, seals }, code, tenant);
      if ("missing" in withdrawn) throw missingSealError(withdrawn, code, tenant);
      return c.json(withdrawn, 200);
    },
  });
  return app;
}
