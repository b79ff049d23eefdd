import { OpenAPIHono, z } from "@hono/zod-openapi";
import { TENANT_MEMBERSHIPS_MAX, TENANT_TAGS_MAX } from "../../contracts/tenant-data.ts";
import { TENANT_RECORD_TYPES, tenantRecord, tenantRecords } from "../../tenant/tenant-records.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { membershipSchema, tagSchema } from "../tenant-data-schemas.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

const settingSchema = z
  .object({ id: z.string(), name: z.string(), code: z.string(), value: z.unknown() })
  .openapi("Setting");

const recordSchema = z.union([membershipSchema, tagSchema, settingSchema]);
const LISTS = { memberships: "membership", tags: "tag", settings: "setting" } as const;
const MOST = Math.max(TENANT_TAGS_MAX, TENANT_MEMBERSHIPS_MAX);

/**
 * Spec 001 9.1 and 9.5: the tenant's memberships, tags and settings, read by sys tokens; the same
 * in both data modes, as operators write them (the admin API, the bootstrap file, the console).
 */
export function enterpriseRoutes(
  deps: GatewayUses<"db" | "oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, mode);
  const common = {
    method: "get",
    tag: "tenant",
    scope: "sys_enterprise",
    kinds: "sys",
    entity: recordSchema,
    entityName: "Membership|Tag|Setting",
  } as const;

  operation(
    {
      ...common,
      path: "/enterprise/{type}/{id}",
      operationId: "getTenantRecord",
      summary:
        "9.1 A membership (id or provider name, any case), tag (id or name) or setting (name) of the tenant; settings without secrets",
      params: z.object({ type: z.enum(TENANT_RECORD_TYPES), id: z.string().min(1).max(200) }),
    },
    async (_c, caller, { params }) => ({
      entities: [await tenantRecord(sql, caller.tenantId, params.type, params.id)],
    }),
  );

  operation(
    {
      ...common,
      path: "/enterprise/{list}",
      operationId: "listTenantRecords",
      summary:
        "9.5 The tenant's memberships, tags (in their `index` order) or settings (whole, without secrets)",
      params: z.object({ list: z.enum(["memberships", "tags", "settings"]) }),
      parameters: z.object({
        start: z.coerce.number().int().min(0).max(MOST).default(0),
        limit: z.coerce.number().int().min(1).max(MOST).default(MOST),
      }),
    },
    async (_c, caller, { params, parameters }) =>
      tenantRecords(sql, caller.tenantId, LISTS[params.list], parameters),
  );
  return app;
}
