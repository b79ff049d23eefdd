import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { setApplicationEnabled, setUserEnabled } from "../../identity/access-control.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const applicationStateSchema = z
  .object({ id: z.string(), disabled: z.boolean() })
  .openapi("ApplicationAccess");
const userStateSchema = z
  .object({ id: z.uuid(), account: z.string(), domain: z.string(), disabled: z.boolean() })
  .openapi("UserAccess");

const ACTIONS = [
  { action: "disable", enabled: false, verb: "Disable" },
  { action: "enable", enabled: true, verb: "Enable" },
] as const;

/**
 * Stopping an application or an account: a disabled one gets no token and every token it holds
 * is refused by every gateway within seconds; enabling it lets its unexpired tokens work again.
 */
export function accessAdminRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  for (const { action, enabled, verb } of ACTIONS) {
    serve(app, {
      surface: "platform",
      method: "post",
      path: `/applications/{id}/${action}`,
      operationId: `${action}Application`,
      tags: ["Admin"],
      summary: `${verb} an application and its tokens`,
      security: [{ admin: [] }],
      request: { params: z.object({ id: z.string().max(64) }) },
      responses: {
        200: {
          description: "its state now",
          content: { "application/json": { schema: applicationStateSchema } },
        },
      },
      errors: [400, 404, 503],
      meanings: { 404: "no such application" },
      operatorToken: true,
      handle: async (c) => {
        const { id } = c.req.valid("param");
        if (!(await setApplicationEnabled(deps.db, id, enabled)))
          throw new PlatformError(ErrorCode.NotFound, `no application ${id}`);
        return c.json({ id, disabled: !enabled }, 200);
      },
    });

    serve(app, {
      surface: "platform",
      method: "post",
      path: `/users/{domain}/{account}/${action}`,
      operationId: `${action}User`,
      tags: ["Admin"],
      summary: `${verb} a tenant's account and its tokens`,
      security: [{ admin: [] }],
      request: { params: z.object({ domain: z.string().max(253), account: z.string().max(100) }) },
      responses: {
        200: { description: "its state now", content: { "application/json": { schema: userStateSchema } } },
      },
      errors: [400, 404, 503],
      meanings: { 404: "no such account in that tenant" },
      operatorToken: true,
      handle: async (c) => {
        const { domain, account } = c.req.valid("param");
        const id = await setUserEnabled(deps.db, domain, account, enabled);
        if (!id) throw new PlatformError(ErrorCode.NotFound, `no account ${account}@${domain}`);
        return c.json({ id, account, domain, disabled: !enabled }, 200);
      },
    });
  }
  return app;
}
