import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  workflowNotifySchema,
  workflowReminderSchema,
  workflowStatisticsSchema,
} from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  type ApplicationRecord,
  accountList,
  applicationList,
  type TenantRecord,
  tenantList,
  type UserRecord,
} from "../../identity/operator-lists.ts";
import { afterKey, pageOf, pageQuery, pageSchema } from "../admin-paging.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const tenantSchema = z
  .object({
    id: z.uuid(),
    domain: z.string(),
    name: z.string(),
    style: z.string().nullable(),
    logo: z.string().nullable(),
    banner: z.string().nullable(),
    copyright: z.string().nullable(),
    workflow: z.object({
      reminder: workflowReminderSchema
        .nullable()
        .openapi({ description: "the channel and text of 4.9's reminders; null: 4.9 is refused" }),
      notify: workflowNotifySchema
        .nullable()
        .openapi({ description: "notifications of new to-dos and copies; null: nobody is notified" }),
      statistics: workflowStatisticsSchema.describe(
        "8.x statistics: whether they are kept, and the time zone of their days",
      ),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("AdminTenant");

const applicationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(["global", "enterprise", "workflow"]),
    tenant: z
      .string()
      .nullable()
      .openapi({ description: "its tenant's domain; null for a global application" }),
    workflowCode: z.string().nullable(),
    redirectUris: z.array(z.string()),
    scopes: z.array(z.string()),
    implicitAllowed: z.boolean(),
    grants: z
      .array(z.string())
      .nullable()
      .openapi({ description: "the grant types it may use; null: every grant its scopes allow" }),
    accessTokenTtlSeconds: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "its access tokens' lifetime; null: ACCESS_TOKEN_TTL_SECONDS" }),
    disabled: z.boolean(),
    hasSecret: z.boolean().openapi({ description: "false for a public client; the secret is never shown" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("AdminApplication");

const userSchema = z
  .object({
    id: z.uuid(),
    account: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    title: z.string().nullable(),
    mailEnabled: z.boolean(),
    disabled: z.boolean(),
    hasPassword: z.boolean().openapi({ description: "whether it may sign in with a password; never shown" }),
    source: z.string().openapi({ description: "FEED for an account the enterprise feed manages" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("AdminUser");

const domain = z.string().min(1).max(253);

function tenantView(tenant: TenantRecord): z.infer<typeof tenantSchema> {
  const { id, domain, name, style, logo, banner, copyright, settings, createdAt, updatedAt } = tenant;
  return {
    id,
    domain,
    name,
    style,
    logo,
    banner,
    copyright,
    workflow: {
      reminder: settings.workflow?.reminder ?? null,
      notify: settings.workflow?.notify ?? null,
      statistics: settings.workflow?.statistics ?? { on: false, timeZone: "UTC" },
    },
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

function applicationView(application: ApplicationRecord): z.infer<typeof applicationSchema> {
  const { createdAt, updatedAt, ...fields } = application;
  return { ...fields, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() };
}

function userView(user: UserRecord): z.infer<typeof userSchema> {
  const { createdAt, updatedAt, ...fields } = user;
  return { ...fields, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() };
}

/** The operators' reads of tenants, applications and accounts, page by page; never a secret or a hash. */
export function adminReadRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const security = [{ admin: [] }];

  function found<T>(rows: T[] | undefined, tenant: string | undefined): T[] {
    if (!rows) throw new PlatformError(ErrorCode.NotFound, `no tenant ${tenant}`);
    return rows;
  }

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/tenants",
    operationId: "listTenants",
    tags: ["Admin"],
    summary: "The tenants, by domain, with their settings",
    security,
    request: { query: pageQuery(1) },
    responses: {
      200: {
        description: "a page of tenants",
        content: { "application/json": { schema: pageSchema(tenantSchema, "AdminTenantPage") } },
      },
    },
    errors: [400, 503],
    operatorToken: true,
    handle: async (c) => {
      const { limit, after } = c.req.valid("query");
      const [from = null] = afterKey(after, 1) ?? [];
      const rows = await tenantList(sql, { after: from, limit: limit + 1 });
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(rows, limit, (row) => [row.domain], tenantView),
        200,
      );
    },
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/applications",
    operationId: "listApplications",
    tags: ["Admin"],
    summary:
      "The applications, by id (a tenant's with `tenant`); whether each has a secret, never the secret",
    security,
    request: { query: pageQuery(1).extend({ tenant: domain.optional() }) },
    responses: {
      200: {
        description: "a page of applications",
        content: { "application/json": { schema: pageSchema(applicationSchema, "AdminApplicationPage") } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant" },
    operatorToken: true,
    handle: async (c) => {
      const { limit, after, tenant } = c.req.valid("query");
      const [from = null] = afterKey(after, 1) ?? [];
      const rows = found(await applicationList(sql, { tenant, after: from, limit: limit + 1 }), tenant);
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(rows, limit, (row) => [row.id], applicationView),
        200,
      );
    },
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/users",
    operationId: "listUsers",
    tags: ["Admin"],
    summary:
      "A tenant's accounts, by account (those starting with `keyword`, case-insensitively); never a password or its hash",
    security,
    request: {
      query: pageQuery(1).extend({
        tenant: domain,
        keyword: z.string().min(1).max(100).optional().openapi({ description: "the start of the account" }),
      }),
    },
    responses: {
      200: {
        description: "a page of accounts",
        content: { "application/json": { schema: pageSchema(userSchema, "AdminUserPage") } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant" },
    operatorToken: true,
    handle: async (c) => {
      const { limit, after, tenant, keyword } = c.req.valid("query");
      const [from = null] = afterKey(after, 1) ?? [];
      const rows = found(await accountList(sql, { tenant, after: from, limit: limit + 1, keyword }), tenant);
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(rows, limit, (row) => [row.account], userView),
        200,
      );
    },
  });
  return app;
}
