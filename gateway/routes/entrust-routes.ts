import { OpenAPIHono, z } from "@hono/zod-openapi";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type { Queryable } from "../../runtime/database.ts";
import { workflowAppByIdOrCode } from "../../workflow/app-store.ts";
import { deleteEntrustments, entrustmentsOf, putEntrustment } from "../../workflow/entrustment-store.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { ownAppId } from "../workflow/own-workflow.ts";
import type { WorkflowCaller } from "../workflow/workflow-access.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { namedUser, type WorkflowTenants } from "../workflow/workflow-tenant.ts";

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

/** The user a path names; a user token names only its own user. */
async function pathUser(deps: GatewayDeps, caller: WorkflowCaller, id: string): Promise<string> {
  const userId = await namedUser(deps.db.sql, caller.tenantId, id);
  if (!caller.sys && userId !== caller.userId) {
    throw new WorkflowRefusal(
      "NOT_YOUR_OWN",
      "a user token reads and changes its own user's delegations only",
    );
  }
  return userId;
}

/**
 * Spec 001 10.x: delegation. `entrustees` of a user are the users who handle the user's tasks for
 * a while (of one app, or of every app); `entrusters` those whose tasks the user handles. A user
 * token delegates its own user's work; a sys token anyone's of its tenant.
 */
/**
 * The workflow a delegation names: `app` when given, every app without it. A Workflow application's
 * token names its own workflow only, and without `app` means it.
 */
async function delegationAppId(
  sql: Queryable,
  caller: WorkflowCaller,
  app?: string,
): Promise<string | undefined> {
  const named = app ? await workflowAppByIdOrCode(sql, caller.tenantId, app) : undefined;
  if (app && !named) throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${app}`);
  const own = await ownAppId(sql, caller);
  if (!own) return named?.id;
  if (named && named.id !== own)
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token delegates its own workflow only");
  return own;
}

export function entrustRoutes(deps: GatewayDeps, tenants: WorkflowTenants, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, tenants, mode);
  for (const relationship of ["entrusters", "entrustees"] as const) {
    const name = relationship === "entrusters" ? "Entrusters" : "Entrustees";
    /** Who entrusts whom, for a path `/user/{id}/{relationship}/{other}`. */
    const pair = (user: string, other: string) =>
      relationship === "entrustees"
        ? { entruster: user, entrustee: other }
        : { entruster: other, entrustee: user };

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
        const user = await pathUser(deps, caller, params.id);
        const all = await entrustmentsOf(sql, caller.tenantId, caller.test, user, relationship);
        // A Workflow application's token sees the delegations that reach its workflow.
        const own = await ownAppId(sql, caller);
        const entrustments = own
          ? all.filter((entrustment) => [undefined, own].includes(entrustment.app?.id))
          : all;
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
      async (_c, caller, { params, parameters }) => {
        const user = await pathUser(deps, caller, params.id);
        const other = await namedUser(sql, caller.tenantId, params.other);
        const { entruster, entrustee } = pair(user, other);
        if (!caller.sys && entruster !== caller.userId) {
          throw new WorkflowRefusal("NOT_YOUR_OWN", "a user delegates their own work only");
        }
        if (entruster === entrustee)
          throw new WorkflowRefusal("DATA_INVALID", "a user cannot entrust themselves");
        const from = parameters.from ?? Math.floor(Date.now() / 1000);
        if (from >= parameters.to) throw new WorkflowRefusal("DATA_INVALID", "to: after from");
        const appId = await delegationAppId(sql, caller, parameters.app);
        const saved = await putEntrustment(
          sql,
          caller.tenantId,
          caller.test,
          entruster,
          entrustee,
          appId ?? null,
          from,
          parameters.to,
        );
        return { entities: [saved] };
      },
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
      async (_c, caller, { params, parameters }) => {
        const user = await pathUser(deps, caller, params.id);
        const other = await namedUser(sql, caller.tenantId, params.other);
        const { entruster, entrustee } = pair(user, other);
        if (!caller.sys && entruster !== caller.userId) {
          throw new WorkflowRefusal("NOT_YOUR_OWN", "a user ends their own delegations only");
        }
        const appId = await delegationAppId(sql, caller, parameters.app);
        const ended = await deleteEntrustments(
          sql,
          caller.tenantId,
          caller.test,
          entruster,
          entrustee,
          appId,
        );
        if (ended === 0) throw new WorkflowRefusal("ENTRUST_NOT_FOUND", "no such delegation");
        return { entities: [], total: ended };
      },
    );
  }
  return app;
}
