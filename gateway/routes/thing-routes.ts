import { OpenAPIHono, z } from "@hono/zod-openapi";
import { newPickup, tasksWaitingFor, thing, usablePickup } from "../../workflow/things.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { taskSchema } from "../workflow/workflow-schemas.ts";

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

/**
 * Spec 001 11.x and 3.5: items to collect. A step that `requiresThing` is handled by naming the item
 * (and, with a pickup code, on behalf of the user the code was made for); 3.5 finds the tasks that
 * wait for an item.
 */
export function thingRoutes(
  deps: GatewayUses<"config" | "db" | "oauth" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const apiBase = `${deps.config.http.publicUrl}${mode.base}`;
  const operation = workflowOperationsOn(app, deps, mode);

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
    async (_c, caller, { params, parameters }) => ({
      entities: [await newPickup(sql, caller, params.code, parameters)],
    }),
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
    async (_c, caller, { params }) => ({ entities: [await thing(sql, caller, params.code)] }),
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
      const pickup = await usablePickup(sql, caller, params.pickup);
      return { entities: pickup ? [pickup] : [], total: pickup ? 1 : 0 };
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
      const tasks = await tasksWaitingFor(sql, caller, params.code, apiBase);
      return { entities: tasks, total: tasks.length };
    },
  );
  return app;
}
