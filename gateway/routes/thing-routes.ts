import { OpenAPIHono, z } from "@hono/zod-openapi";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { processByRef } from "../../workflow/process-store.ts";
import { taskViewById } from "../../workflow/process-views.ts";
import { createPickup, pickupByCode, thingByCode, thingTasks } from "../../workflow/thing-store.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { ownAppId } from "../workflow/own-workflow.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { taskSchema } from "../workflow/workflow-schemas.ts";
import type { WorkflowTenants } from "../workflow/workflow-tenant.ts";

const thingSchema = z.object({ id: z.uuid(), code: z.string(), name: z.string() }).openapi("Thing");
const pickupSchema = z
  .object({
    pickup: z.string(),
    thing: thingSchema,
    user: z.object({ id: z.uuid(), account: z.string(), name: z.string() }).nullable(),
    expireTime: z.number().int(),
    usedTime: z.number().int().nullable(),
  })
  .openapi("Pickup");
const codeParam = z.object({ code: z.string().min(1).max(200) });
/** A pickup code lasts a week unless the caller says otherwise. */
const DEFAULT_PICKUP_SECONDS = 7 * 24 * 3600;

/**
 * Spec 001 11.x and 3.5: items to collect. A step that `requiresThing` is handled by naming the item
 * (and, with a pickup code, on behalf of the user the code was made for); 3.5 finds the tasks that
 * wait for an item.
 */
export function thingRoutes(deps: GatewayDeps, tenants: WorkflowTenants, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const apiBase = `${deps.config.http.publicUrl}${mode.base}`;
  const operation = workflowOperationsOn(app, deps, tenants, mode);

  operation(
    {
      method: "put",
      path: "/thing/{code}/pickup",
      operationId: "createPickup",
      summary:
        "11.1 A pickup code for an item (made, with `name`, when new), for `collector` or anyone, until `expire` (Unix seconds)",
      tag: "thing",
      scope: "sys_thing_edit",
      kinds: "sys",
      params: codeParam,
      parameters: z.object({
        name: z.string().min(1).max(200).optional(),
        expire: z.coerce.number().int().min(0).max(253_402_300_799).optional(),
      }),
      entity: pickupSchema,
      entityName: "Pickup",
    },
    async (_c, caller, { params, parameters }) => {
      const now = Math.floor(Date.now() / 1000);
      const expire = parameters.expire ?? now + DEFAULT_PICKUP_SECONDS;
      if (expire <= now) throw new WorkflowRefusal("DATA_INVALID", "expire: a time to come");
      const thing = { code: params.code, name: parameters.name };
      return {
        entities: [
          await createPickup(sql, caller.tenantId, caller.test, thing, caller.userId ?? null, expire),
        ],
      };
    },
  );

  operation(
    {
      method: "get",
      path: "/thing/{code}",
      operationId: "getThing",
      summary: "11.2 An item",
      tag: "thing",
      scope: "sys_thing",
      kinds: "sys",
      params: codeParam,
      entity: thingSchema,
      entityName: "Thing",
    },
    async (_c, caller, { params }) => {
      const thing = await thingByCode(sql, caller.tenantId, caller.test, params.code);
      if (!thing) throw new WorkflowRefusal("THING_NOT_FOUND", `no item ${params.code}`);
      return { entities: [thing] };
    },
  );

  operation(
    {
      method: "get",
      path: "/pickup/{pickup}/things",
      operationId: "getPickupThings",
      summary: "11.3 The items a pickup code collects, while it is unused and unexpired",
      tag: "thing",
      scope: "sys_thing",
      kinds: "sys",
      params: z.object({ pickup: z.string().min(1).max(64) }),
      entity: pickupSchema,
      entityName: "Pickup",
    },
    async (_c, caller, { params }) => {
      const pickup = await pickupByCode(sql, caller.tenantId, caller.test, params.pickup);
      if (!pickup) throw new WorkflowRefusal("PICKUP_NOT_FOUND", `no pickup code ${params.pickup}`);
      const usable = pickup.usedTime === null && pickup.expireTime > Date.now() / 1000;
      return { entities: usable ? [pickup] : [], total: usable ? 1 : 0 };
    },
  );

  operation(
    {
      method: "get",
      path: "/thing/{code}/tasks",
      operationId: "getThingTasks",
      summary:
        "3.5 Tasks waiting for an item: the user's (`collect: mine`), others' (`others`, collectable on their behalf), and those the user collected it with (`collected`)",
      tag: "task execution",
      scope: "task",
      kinds: "user",
      params: codeParam,
      entity: taskSchema.extend({ collect: z.enum(["mine", "others", "collected"]) }),
      entityName: "ThingTask",
    },
    async (_c, caller, { params }) => {
      const rows = await thingTasks(
        sql,
        caller.tenantId,
        caller.test,
        params.code,
        caller.userId!,
        await ownAppId(sql, caller),
      );
      const entities = [];
      for (const row of rows) {
        const process = await processByRef(sql, caller.tenantId, caller.test, { id: row.processId });
        if (!process) continue;
        const task = await taskViewById(sql, process, row.taskId, {
          apiBase,
          showHidden: false,
          includeExecutors: false,
          includeAncestors: false,
        });
        entities.push({ ...task, collect: row.collect });
      }
      return { entities, total: entities.length };
    },
  );
  return app;
}
