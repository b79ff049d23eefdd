import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { bootstrapMembershipSchema, bootstrapTagSchema, tagNameSchema } from "../../contracts/tenant-data.ts";
import { issueField } from "../../contracts/validation-issue.ts";
import { SETTING_NAMES, SETTINGS } from "../../tenant/settings.ts";
import {
  setMembership,
  setSetting,
  setTag,
  tenantData,
  withdrawMembership,
  withdrawTag,
} from "../../tenant/tenant-admin.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";
import { membershipSchema, tagSchema } from "../tenant-data-schemas.ts";

const tagBody = bootstrapTagSchema.omit({ tenant: true, name: true }).openapi("AdminTagBody");
const membershipBody = bootstrapMembershipSchema
  .omit({ tenant: true, provider: true })
  .openapi("AdminMembershipBody");
const settingBody = z
  .object({
    value: z.unknown().describe("the setting's value, as the bootstrap file's tenant `workflow` holds it"),
  })
  .strict()
  .openapi("AdminSettingBody");

const tenantDataSchema = z
  .object({
    tags: z.array(tagSchema),
    memberships: z.array(membershipSchema),
    settings: z.record(z.string(), z.unknown()),
  })
  .openapi("AdminTenantData");
const doneSchema = z.object({ done: z.literal(true) }).openapi("AdminTenantDataChanged");

const domain = z.string().min(1).max(253);
const provider = bootstrapMembershipSchema.shape.provider;

const json = <S extends z.ZodType>(schema: S) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
const answer = <S extends z.ZodType>(description: string, schema: S) => ({
  200: { description, content: { "application/json": { schema } } },
});

/**
 * The operators' API for a tenant's own data: its tags and memberships, written one by one, and
 * its settings (as the bootstrap file's tenant `workflow` holds them) set or removed one by one.
 */
export function tenantAdminRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const common = {
    surface: "platform" as const,
    tags: ["Admin"] as string[],
    security: [{ admin: [] }],
    operatorToken: true as const,
  };

  serve(app, {
    ...common,
    method: "get",
    path: "/tenants/{domain}/data",
    operationId: "getTenantData",
    summary: "A tenant's tags, memberships and settings",
    request: { params: z.object({ domain }) },
    responses: answer("the tenant's data", tenantDataSchema),
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant" },
    handle: async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json(await tenantData(sql, c.req.valid("param").domain), 200);
    },
  });

  serve(app, {
    ...common,
    method: "put",
    path: "/tenants/{domain}/tags/{name}",
    operationId: "putTenantTag",
    summary: "Create or change a tag of the tenant (apps and processes are tagged with its name)",
    request: { params: z.object({ domain, name: tagNameSchema }), ...json(tagBody) },
    responses: answer("the tag", tagSchema),
    errors: [400, 404, 409, 413, 415, 503],
    meanings: { 404: "no such tenant", 409: "the tenant has as many tags as it may" },
    handle: async (c) => {
      const { domain, name } = c.req.valid("param");
      return c.json(await setTag(sql, domain, { ...c.req.valid("json"), name }), 200);
    },
  });

  serve(app, {
    ...common,
    method: "delete",
    path: "/tenants/{domain}/tags/{name}",
    operationId: "removeTenantTag",
    summary: "Remove a tag of the tenant; apps and processes keep the name they were tagged with",
    request: { params: z.object({ domain, name: tagNameSchema }) },
    responses: answer("the tag removed", tagSchema),
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant or tag" },
    handle: async (c) => {
      const { domain, name } = c.req.valid("param");
      return c.json(await withdrawTag(sql, domain, name), 200);
    },
  });

  serve(app, {
    ...common,
    method: "put",
    path: "/tenants/{domain}/memberships/{provider}",
    operationId: "putTenantMembership",
    summary: "Create or change the tenant's membership of a provider (its name matched whatever its case)",
    request: { params: z.object({ domain, provider }), ...json(membershipBody) },
    responses: answer("the membership", membershipSchema),
    errors: [400, 404, 409, 413, 415, 503],
    meanings: { 404: "no such tenant", 409: "the tenant has as many memberships as it may" },
    handle: async (c) => {
      const { domain, provider } = c.req.valid("param");
      return c.json(await setMembership(sql, domain, { ...c.req.valid("json"), provider }), 200);
    },
  });

  serve(app, {
    ...common,
    method: "delete",
    path: "/tenants/{domain}/memberships/{provider}",
    operationId: "removeTenantMembership",
    summary: "Remove the tenant's membership of a provider",
    request: { params: z.object({ domain, provider }) },
    responses: answer("the membership removed", membershipSchema),
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant or membership" },
    handle: async (c) => {
      const { domain, provider } = c.req.valid("param");
      return c.json(await withdrawMembership(sql, domain, provider), 200);
    },
  });

  const settingParams = z.object({ domain, name: z.enum(SETTING_NAMES as [string, ...string[]]) });
  serve(app, {
    ...common,
    method: "put",
    path: "/tenants/{domain}/settings/{name}",
    operationId: "putTenantSetting",
    summary: `Set one of the tenant's settings (${SETTING_NAMES.join(", ")}); \`null\` removes it`,
    request: { params: settingParams, ...json(settingBody) },
    responses: answer("set", doneSchema),
    errors: [400, 404, 413, 415, 503],
    meanings: { 400: "the value breaks the setting's schema", 404: "no such tenant" },
    handle: async (c) => {
      const { domain, name } = c.req.valid("param");
      const setting = SETTINGS[name as keyof typeof SETTINGS];
      const { value } = c.req.valid("json");
      const parsed =
        value === null ? { success: true as const, data: null } : setting.schema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issueField(issue);
        throw new PlatformError(
          ErrorCode.InvalidArgument,
          `value${field ? `.${field}` : ""}: ${issue.message}`,
        );
      }
      await setSetting(sql, domain, name as keyof typeof SETTINGS, parsed.data);
      return c.json({ done: true as const }, 200);
    },
  });
  return app;
}
