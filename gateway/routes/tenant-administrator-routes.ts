import { OpenAPIHono, z } from "@hono/zod-openapi";
import { granteeListSchema } from "../../contracts/bootstrap.ts";
import { administratorsOfDomain, setAdministratorsOfDomain } from "../../workflow/tenant-administrators.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

// A copy made here has the `openapi` method the contract's own instance may lack when the contract
// was loaded before @hono/zod-openapi.
const listSchema = granteeListSchema.extend({}).openapi("TenantAdministratorList", {
  description: "accounts of the tenant, and positions `dept:post` (`*` for any) whose holders count",
});
const administratorsSchema = z
  .object({ tenant: z.string(), accounts: z.array(z.string()), positions: z.array(z.string()) })
  .openapi("TenantAdministrators");
const domainParam = z.object({ domain: z.string().min(1).max(253) });
const answer = {
  200: {
    description: "the operator's list of the tenant's administrators",
    content: { "application/json": { schema: administratorsSchema } },
  },
};

/**
 * The operators' list of a tenant's administrators (spec 001's `enterprise` W): they grant and
 * revoke access to positions (7.3, 7.4) with their own user tokens.
 */
export function tenantAdministratorRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const common = {
    surface: "platform" as const,
    path: "/tenants/{domain}/administrators",
    tags: ["Admin"],
    security: [{ admin: [] }],
    responses: answer,
    meanings: { 404: "no such tenant" },
    operatorToken: true as const,
  };
  serve(app, {
    ...common,
    method: "get",
    operationId: "getTenantAdministrators",
    summary: "A tenant's administrators as the operator named them: accounts and positions",
    request: { params: domainParam },
    errors: [400, 404, 503],
    handle: async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json(await administratorsOfDomain(sql, c.req.valid("param").domain), 200);
    },
  });
  serve(app, {
    ...common,
    method: "put",
    operationId: "setTenantAdministrators",
    summary:
      "Replace the operator's list of a tenant's administrators (grants made otherwise stay); an unknown account is refused, naming it",
    request: {
      params: domainParam,
      body: { content: { "application/json": { schema: listSchema } }, required: true },
    },
    errors: [400, 404, 413, 503],
    handle: async (c) => {
      const list = c.req.valid("json");
      return c.json(await setAdministratorsOfDomain(sql, c.req.valid("param").domain, list), 200);
    },
  });
  return app;
}
