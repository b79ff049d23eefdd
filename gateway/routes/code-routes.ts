import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  ALL_ITEMS,
  type CodeItemFields,
  changeCodeItem,
  createCodeItem,
  readCodeItems,
  removeCodeItem,
} from "../../tenant/code-tables.ts";
import { requireTenantAdministrator } from "../../workflow/access-grants.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { metaParameter, pageParameters } from "../workflow/directory-parameters.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

const itemCode = z.string().min(1).max(100);

/** Spec 001's `code`: an item of a code table. */
const codeItemSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    code: z.string(),
    parentCode: z.string().nullable(),
    description: z.string().nullable(),
    index: z.number().int(),
    attributes: z.record(z.string(), z.string()),
  })
  .openapi("CodeItem");

/** An empty `parent` or `description` clears it. */
const clearable = (max: number) =>
  z
    .string()
    .max(max)
    .transform((text) => text || null);

/** 9.6's parameters, all strings: `index` an integer, `attributes` the JSON of a map of strings. */
const fields = {
  name: z.string().min(1).max(200),
  parent: clearable(100).optional(),
  description: clearable(2000).optional(),
  index: z.coerce.number().int().min(-1_000_000).max(1_000_000).optional(),
  attributes: metaParameter.optional(),
};
const createParameters = z.object({ code: itemCode, ...fields });
const changeParameters = z.object(fields).partial();

function itemFields(parameters: z.infer<typeof changeParameters>): Partial<CodeItemFields> {
  const { parent, ...rest } = parameters;
  return { ...rest, ...(parent === undefined ? {} : { parentCode: parent }) };
}

/**
 * Spec 001 9.6: the tenant's code tables, item by item; each data mode has its own (an item made
 * under /apis/v2d is test data). Sys tokens (`sys_code`) as spec 001 gives them; beyond it, user
 * tokens (`code`) read them, and write them when the user is a tenant administrator.
 */
export function codeRoutes(deps: GatewayUses<"db" | "oauth" | "workflowTenants">, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, mode);
  const common = { tag: "tenant", kinds: "u/s", entity: codeItemSchema, entityName: "Code" } as const;
  const itemParams = z.object({ tableCode: itemCode, itemCode });
  const address = (caller: { tenantId: string; test: boolean }, table: string, code: string) => ({
    tenantId: caller.tenantId,
    test: caller.test,
    table,
    code,
  });

  operation(
    {
      ...common,
      method: "put",
      path: "/code/{tableCode}/item",
      operationId: "createCodeItem",
      summary:
        "9.6 Create an item of a code table: `code` unique in the table (CODE_TAKEN), `name` in the tenant (NAME_TAKEN)",
      scope: "code",
      params: z.object({ tableCode: itemCode }),
      parameters: createParameters,
    },
    async (_c, caller, { params, parameters }) => {
      await requireTenantAdministrator(sql, caller);
      const { code, ...rest } = parameters;
      const item = { ...itemFields(rest), name: rest.name };
      return { entities: [await createCodeItem(sql, address(caller, params.tableCode, code), item)] };
    },
  );

  operation(
    {
      ...common,
      method: "get",
      path: "/code/{tableCode}/item/{itemCode}",
      operationId: "getCodeItems",
      summary: `9.6 An item of a code table, or with \`${ALL_ITEMS}\` a page of its items in their \`index\` order`,
      scope: "code",
      params: itemParams,
      parameters: z.object(pageParameters),
    },
    async (_c, caller, { params, parameters }) => {
      const item = address(caller, params.tableCode, params.itemCode);
      const { items, total } = await readCodeItems(sql, item, parameters);
      return { entities: items, total };
    },
  );

  operation(
    {
      ...common,
      method: "post",
      path: "/code/{tableCode}/item/{itemCode}",
      operationId: "changeCodeItem",
      summary: "9.6 Change an item of a code table: the parameters given (an empty `parent` clears it)",
      scope: "code",
      params: itemParams,
      parameters: changeParameters,
    },
    async (_c, caller, { params, parameters }) => {
      await requireTenantAdministrator(sql, caller);
      const item = address(caller, params.tableCode, params.itemCode);
      return { entities: [await changeCodeItem(sql, item, itemFields(parameters))] };
    },
  );

  operation(
    {
      ...common,
      method: "delete",
      path: "/code/{tableCode}/item/{itemCode}",
      operationId: "removeCodeItem",
      summary: "9.6 Remove an item of a code table, answering what it was",
      scope: "code",
      params: itemParams,
    },
    async (_c, caller, { params }) => {
      await requireTenantAdministrator(sql, caller);
      return { entities: [await removeCodeItem(sql, address(caller, params.tableCode, params.itemCode))] };
    },
  );
  return app;
}
