import { OpenAPIHono, z } from "@hono/zod-openapi";
import { heldPositions } from "../../directory/positions.ts";
import type { AccessClaims } from "../../identity/access-tokens.ts";
import { profileOf } from "../../identity/users.ts";
import { changeProfilePreference, profilePreference } from "../../workflow/profile-preferences.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { serve } from "../operation.ts";
import { type WorkflowDataMode, workflowOperationId } from "../workflow/data-mode.ts";
import { heldPositionSchema } from "../workflow/triple-schemas.ts";
import { workflowErrors, workflowResponse, workflowResponseSchema } from "../workflow/workflow-envelope.ts";

const enterpriseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    domain: z.string(),
    style: z.string().nullable(),
    logo: z.string().nullable(),
    banner: z.string().nullable(),
    copyright: z.string().nullable(),
  })
  .openapi("Enterprise");

const profileSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    account: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    enterprise: enterpriseSchema,
    TenantApps: z.array(z.string()).optional(),
    FavoriteApps: z.array(z.string()).optional(),
    FavoriteTasks: z.array(z.number().int()).optional(),
    FavoriteTags: z.array(z.string()).optional(),
  })
  .loose()
  .openapi("Profile");

const profileResponses = {
  200: {
    description: "Response<Profile>",
    content: { "application/json": { schema: workflowResponseSchema(profileSchema, "ProfileResponse") } },
  },
};
const positionResponses = {
  200: {
    description: "Response<Position>",
    content: {
      "application/json": { schema: workflowResponseSchema(heldPositionSchema, "PositionResponse") },
    },
  },
};

const keyParam = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, "a letter, then letters, digits, _ . -");
const valueParam = z.string().min(1).max(256);

/**
 * Spec 001 1.x: the token user's profile, preferences and positions under `/me`, and their sys
 * forms under `/user/{userId}` for any user of the application's tenant.
 */
export function userRoutes(deps: GatewayUses<"db" | "oauth">, mode: WorkflowDataMode) {
  const { accessTokens } = deps.oauth;
  const sql = deps.db.sql;
  const app = new OpenAPIHono<GatewayEnv>();
  const token = (scopes: string[], kind: "user" | "sys") => requireToken(accessTokens, { scopes, kind });
  /** The user a call is about: the token's own, or (sys form) the one named, within the tenant. */
  const subject = (claims: AccessClaims, userId: string | undefined) =>
    userId ? { userId, tenantId: claims.tenantId } : { userId: claims.userId!, tenantId: undefined };
  const me = "/me";
  const sys = "/user/{userId}";
  const tags = ["Directory"];
  const security = [{ bearer: [] }];
  const userIdParam = z.object({ userId: z.uuid() });
  const operationId = (name: string) => workflowOperationId(mode, name);

  for (const [path, middleware, params] of [
    [`${me}/profile`, token(["profile"], "user"), undefined],
    [`${sys}/profile`, token(["sys_profile"], "sys"), userIdParam],
  ] as const) {
    serve(app, {
      method: "get",
      path,
      operationId: operationId(params ? "getUserProfile" : "getMyProfile"),
      tags,
      summary: params ? "1.1 (sys form) A user's profile" : "1.1 The token user's profile",
      security,
      token: middleware,
      ...(params ? { request: { params } } : {}),
      responses: profileResponses,
      ...workflowErrors(),
      handle: async (c) => {
        const { userId, tenantId } = subject(c.get("token"), c.req.param("userId"));
        return c.json(workflowResponse([await profileOf(sql, userId, tenantId)]), 200);
      },
    });
  }

  for (const sysForm of [false, true]) {
    const at = sysForm ? sys : me;
    const read = sysForm ? token(["sys_profile"], "sys") : token(["profile"], "user");
    const edit = sysForm ? token(["sys_profile_edit"], "sys") : token(["profile_edit"], "user");
    const params = sysForm ? userIdParam.extend({ key: keyParam }) : z.object({ key: keyParam });
    const valueParams = params.extend({ value: valueParam });
    const label = sysForm ? " (sys form)" : "";
    const whose = sysForm ? "User" : "My";

    serve(app, {
      method: "get",
      path: `${at}/preference/{key}`,
      operationId: operationId(`get${whose}Preference`),
      tags,
      summary: `1.3${label} A preference set, with the built-in ones`,
      security,
      token: read,
      request: { params },
      responses: profileResponses,
      ...workflowErrors(),
      handle: async (c) => {
        const { key } = c.req.valid("param");
        const profile = await profilePreference(sql, subject(c.get("token"), c.req.param("userId")), key);
        return c.json(workflowResponse([profile]), 200);
      },
    });
    for (const [method, change, id] of [
      ["put", "add", "1.4"],
      ["delete", "remove", "1.5"],
    ] as const) {
      serve(app, {
        method,
        path: `${at}/preference/{key}/{value}`,
        operationId: operationId(`${change}${whose}Preference`),
        tags,
        summary: `${id}${label} ${change === "add" ? "Add a value to" : "Remove a value from"} a preference set`,
        security,
        token: edit,
        request: { params: valueParams },
        responses: profileResponses,
        ...workflowErrors(),
        handle: async (c) => {
          const { key, value } = c.req.valid("param");
          const who = subject(c.get("token"), c.req.param("userId"));
          const profile = await changeProfilePreference(sql, who, { key, value, change });
          return c.json(workflowResponse([profile]), 200);
        },
      });
    }
  }

  serve(app, {
    method: "get",
    path: `${me}/positions`,
    operationId: operationId("getMyPositions"),
    tags,
    summary: "1.6 The positions the token's user holds",
    security,
    token: token(["triple"], "user"),
    responses: positionResponses,
    ...workflowErrors(),
    handle: async (c) => {
      const claims = c.get("token");
      const positions = await heldPositions(sql, claims.tenantId!, { id: claims.userId! });
      return c.json(workflowResponse(positions), 200);
    },
  });
  return app;
}
