import { OpenAPIHono, z } from "@hono/zod-openapi";
import { delegate, delegationsOf, endDelegation } from "../../workflow/delegations.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";

const entrustmentSchema = z
  .object({
    id: z.uuid(),
    entruster: z.object({ id: z.uuid(), account: z.string(), name: z.string() }),
    entrustee: z.object({ id: z.uuid(), account: z.string(), name: z.string() }),
    app: z.object({ id: z.uuid(), code: z.string(), name: z.string() }).nullable(),
    from: z.number().int(),
    to: z.number().int(),
  })
  .openapi("Entrust");
const userParam = z.object({ id: z.string().min(1).max(360) });
const pairParam = userParam.extend({ other: z.string().min(1).max(360) });
const unixSeconds = z.coerce.number().int().min(0).max(253_402_300_799);

/**
 * Spec 001 10.x: delegation, both ways: the users a user entrusts with their tasks, and those who
 * entrust the user with theirs.
 */
export function entrustRoutes(deps: GatewayUses<"db" | "oauth" | "workflowTenants">, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, mode);
  for (const relationship of ["entrusters", "entrustees"] as const) {
    const name = relationship === "entrusters" ? "Entrusters" : "Entrustees";
    const pathOf = (params: { id: string; other: string }) => ({
      relationship,
      user: params.id,
      other: params.other,
    });

    operation(
      {
        method: "get",
        path: `/user/{id}/${relationship}`,
        operationId: `get${name}`,
        summary:
          relationship === "entrustees"
            ? "10.1 The users a user (id or account) entrusts with their tasks"
            : "10.1 The users who entrust a user (id or account) with their tasks",
        tag: "entrust",
        scope: "entrust",
        kinds: "u/s",
        params: userParam,
        entity: entrustmentSchema,
        entityName: "Entrust",
      },
      async (_c, caller, { params }) => {
        const entrustments = await delegationsOf(sql, caller, params.id, relationship);
        return { entities: entrustments, total: entrustments.length };
      },
    );

    operation(
      {
        method: "put",
        path: `/user/{id}/${relationship}/{other}`,
        operationId: `put${name.slice(0, -1)}`,
        summary:
          "10.2 Delegate: the entrustee handles the entruster's tasks of `app` (every app when absent) from `from` to `to` (Unix seconds)",
        tag: "entrust",
        scope: "entrust_edit",
        kinds: "u/s",
        params: pairParam,
        parameters: z.object({
          app: z.string().min(1).max(64).optional(),
          from: unixSeconds.optional(),
          to: unixSeconds,
        }),
        entity: entrustmentSchema,
        entityName: "Entrust",
      },
      async (_c, caller, { params, parameters }) => ({
        entities: [await delegate(sql, caller, pathOf(params), parameters)],
      }),
    );

    operation(
      {
        method: "delete",
        path: `/user/{id}/${relationship}/{other}`,
        operationId: `delete${name.slice(0, -1)}`,
        summary: "10.3 End a delegation (of `app`, or every delegation between the two users)",
        tag: "entrust",
        scope: "entrust_edit",
        kinds: "u/s",
        params: pairParam,
        parameters: z.object({ app: z.string().min(1).max(64).optional() }),
        entity: entrustmentSchema,
        entityName: "Entrust",
      },
      async (_c, caller, { params, parameters }) => ({
        entities: [],
        total: await endDelegation(sql, caller, pathOf(params), parameters.app),
      }),
    );
  }
  return app;
}
