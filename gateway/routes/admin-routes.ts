import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { bootstrapSchema } from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { applyBootstrap } from "../../runtime/bootstrap.ts";
import { ConfigError } from "../../runtime/config.ts";
import { rotateApplicationSecret } from "../../runtime/directory/application-secrets.ts";
import { deleteSeal } from "../../runtime/directory/seals.ts";
import { tenantByDomain } from "../../runtime/directory/tenants.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireOperatorToken } from "../middleware/require-operator-token.ts";
import { rotateSigningKey } from "../oauth/access-tokens.ts";
import type { SealCache } from "../seal-cache.ts";

const appliedSchema = z.object({ applied: z.literal(true) }).openapi("BootstrapApplied");
const rotatedSchema = z.object({ rotated: z.literal(true) }).openapi("SigningKeyRotated");
const withdrawnSchema = z.object({ withdrawn: z.literal(true) }).openapi("SealWithdrawn");
const secretSchema = z.object({ id: z.string(), secret: z.string() }).openapi("ApplicationSecret");

/** The operators' API: the bootstrap document applied on demand, and application secrets. Off without ADMIN_TOKEN. */
export function adminRoutes(deps: GatewayDeps, seals: SealCache) {
  const app = new OpenAPIHono<GatewayEnv>();
  const adminToken = deps.config.adminToken;
  if (!adminToken) return app;
  app.use("/admin/*", requireOperatorToken(adminToken, "admin"));

  app.openapi(
    createRoute({
      method: "put",
      path: "/admin/bootstrap",
      tags: ["Admin"],
      summary: "Create or update tenants, applications and users, as the bootstrap file does",
      security: [{ admin: [] }],
      request: { body: { content: { "application/json": { schema: bootstrapSchema } }, required: true } },
      responses: {
        200: { description: "applied", content: { "application/json": { schema: appliedSchema } } },
      },
    }),
    async (c) => {
      try {
        await applyBootstrap(deps.db.sql, c.req.valid("json"), deps.log);
        deps.oauth.applications.clear();
        seals.clear();
      } catch (error) {
        if (error instanceof ConfigError) throw new PlatformError(ErrorCode.InvalidArgument, error.message);
        throw error;
      }
      return c.json({ applied: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/admin/applications/{id}/secret",
      tags: ["Admin"],
      summary: "Give an application a new secret; the answer is the only place it is shown",
      security: [{ admin: [] }],
      request: { params: z.object({ id: z.string().max(64) }) },
      responses: {
        200: { description: "the new secret", content: { "application/json": { schema: secretSchema } } },
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const secret = await rotateApplicationSecret(deps.db.sql, id);
      if (!secret) throw new PlatformError(ErrorCode.NotFound, `no application ${id}`);
      deps.oauth.applications.clear();
      c.header("Cache-Control", "no-store");
      return c.json({ id, secret }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/admin/signing-keys/rotate",
      tags: ["Admin"],
      summary: "Retire the token signing key and make a new one; tokens already issued keep working",
      security: [{ admin: [] }],
      responses: {
        200: { description: "rotated", content: { "application/json": { schema: rotatedSchema } } },
      },
    }),
    async (c) => {
      await rotateSigningKey(deps.db.sql);
      await deps.oauth.accessTokens.reload();
      return c.json({ rotated: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/admin/seals/{code}",
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
    }),
    async (c) => {
      const { code } = c.req.valid("param");
      const { tenant } = c.req.valid("query");
      const owner = tenant ? await tenantByDomain(deps.db.sql, tenant) : undefined;
      if (tenant && !owner) throw new PlatformError(ErrorCode.NotFound, `no tenant ${tenant}`);
      const deleted = await deleteSeal(deps.db.sql, code, owner?.id ?? null);
      seals.clear();
      if (!deleted)
        throw new PlatformError(ErrorCode.NotFound, `no seal ${code}${tenant ? ` of ${tenant}` : ""}`);
      return c.json({ withdrawn: true as const }, 200);
    },
  );
  return app;
}
