import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  grantPosition,
  heldPositions,
  parsePosition,
  parsePositionFilter,
  revokePosition,
  searchUsers,
} from "../../directory/positions.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { serve } from "../operation.ts";
import { type WorkflowDataMode, workflowOperationId } from "../workflow/data-mode.ts";
import { documentedParameters, pageParameters, parseParameters } from "../workflow/directory-parameters.ts";
import { requestParameters } from "../workflow/request-parameters.ts";
import { heldPositionSchema, tripleUserSchema } from "../workflow/triple-schemas.ts";
import { workflowErrors, workflowResponse, workflowResponseSchema } from "../workflow/workflow-envelope.ts";

const domainParameter = { domain: z.string().max(253).optional() };
const grantParameters = z.object({
  code: z.string().min(1).max(100),
  number: z.string().max(100).optional(),
  source: z.string().min(1).max(32).optional(),
  ...domainParameter,
});
const revokeParameters = grantParameters.omit({ number: true });

const positions = {
  description: "Response<Position>",
  content: {
    "application/json": { schema: workflowResponseSchema(heldPositionSchema, "GrantedPositionResponse") },
  },
};
const positionResponses = { 200: positions };
const userResponses = {
  200: {
    description: "Response<User> with the positions each holds",
    content: {
      "application/json": { schema: workflowResponseSchema(tripleUserSchema, "PositionUsersResponse") },
    },
  },
};

/** Spec 001 6.x: who holds which position, read and granted by sys tokens. */
export function positionRoutes(
  deps: GatewayUses<"db" | "oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  const tenants = deps.workflowTenants;
  const { accessTokens } = deps.oauth;
  const sql = deps.db.sql;
  const app = new OpenAPIHono<GatewayEnv>();
  const read = requireToken(accessTokens, { scopes: ["sys_triple"], kind: "sys" });
  const edit = requireToken(accessTokens, { scopes: ["sys_triple_edit"], kind: "sys" });
  const tags = ["Directory"];
  const security = [{ bearer: [] }];
  const positionParam = z.object({ position: z.string().min(3).max(5000) });
  const operationId = (name: string) => workflowOperationId(mode, name);
  serve(app, {
    method: "get",
    path: `/user/{id}/positions`,
    operationId: operationId("getUserPositions"),
    tags,
    summary: "6.1 The positions a user (id or account) holds",
    security,
    token: read,
    request: { params: z.object({ id: z.string().min(1).max(360) }), query: z.object(domainParameter) },
    responses: positionResponses,
    ...workflowErrors(),
    handle: async (c) => {
      const { id } = c.req.valid("param");
      const { tenantId, code } = await tenants.resolveCode(c.get("token"), id, c.req.valid("query").domain);
      return c.json(workflowResponse(await heldPositions(sql, tenantId, { code })), 200);
    },
  });

  serve(app, {
    method: "get",
    path: `/position/{position}/users`,
    operationId: operationId("getPositionUsers"),
    tags,
    summary: "6.2 Users holding a position (`dept:post`, `*` for any, comma-separated for several), paged",
    security,
    token: read,
    request: { params: positionParam, query: z.object({ ...pageParameters, ...domainParameter }) },
    responses: userResponses,
    ...workflowErrors(),
    handle: async (c) => {
      const patterns = parsePositionFilter(c.req.valid("param").position);
      const { start, limit, domain } = c.req.valid("query");
      const tenantId = await tenants.resolve(c.get("token"), domain);
      const { total, users } = await searchUsers(sql, tenantId, { start, limit, positions: patterns });
      return c.json(workflowResponse(users, total), 200);
    },
  });

  serve(app, {
    method: "put",
    path: `/position/{position}/users`,
    operationId: operationId("grantPosition"),
    tags,
    summary: "6.3 Give a user (`code`: account or id) a position, with an optional staff or student `number`",
    security,
    token: edit,
    request: {
      params: positionParam,
      ...documentedParameters(grantParameters, "GrantPositionParameters"),
    },
    responses: positionResponses,
    ...workflowErrors(413),
    ownInput: "query and body",
    handle: async (c) => {
      const position = parsePosition(c.req.valid("param").position);
      const { domain, ...grant } = parseParameters(grantParameters, await requestParameters(c));
      const tenantId = await tenants.resolve(c.get("token"), domain);
      return c.json(workflowResponse([await grantPosition(sql, tenantId, position, grant)]), 200);
    },
  });

  serve(app, {
    method: "delete",
    path: `/position/{position}/users`,
    operationId: operationId("revokePosition"),
    tags,
    summary: "6.4 Take the matching positions (wildcards allowed) from a user (`code`)",
    security,
    token: edit,
    request: {
      params: positionParam,
      ...documentedParameters(revokeParameters, "RevokePositionParameters"),
    },
    responses: positionResponses,
    ...workflowErrors(413),
    ownInput: "query and body",
    handle: async (c) => {
      const patterns = parsePositionFilter(c.req.valid("param").position);
      const { domain, ...grant } = parseParameters(revokeParameters, await requestParameters(c));
      const tenantId = await tenants.resolve(c.get("token"), domain);
      return c.json(workflowResponse(await revokePosition(sql, tenantId, patterns, grant)), 200);
    },
  });
  return app;
}
