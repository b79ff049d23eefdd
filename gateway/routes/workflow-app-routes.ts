import { OpenAPIHono, z } from "@hono/zod-openapi";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { type Queryable, transaction } from "../../runtime/database.ts";
import {
  appRatings,
  setVersionOnline,
  updateWorkflowAppSettings,
  versionsOf,
  type WorkflowApp,
  type WorkflowVersion,
  workflowAppByIdOrCode,
} from "../../workflow/app-store.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { booleanParameter } from "../workflow/directory-parameters.ts";
import type { WorkflowCaller } from "../workflow/workflow-access.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import type { WorkflowTenants } from "../workflow/workflow-tenant.ts";

const versionSchema = z
  .object({
    id: z.uuid(),
    name: z.string().nullable(),
    number: z.number().int(),
    current: z.boolean(),
    online: z.boolean(),
    schema: z.object({ fields: z.array(z.record(z.string(), z.unknown())) }),
  })
  .openapi("WorkflowVersion");
const appSchema = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    rating: z.number().int(),
    rated: z.number().int(),
    visible: z.boolean(),
    ready: z.boolean(),
    currentVersion: versionSchema.nullable(),
    versions: z.array(versionSchema).optional(),
  })
  .passthrough()
  .openapi("WorkflowApp");
const idcParam = z.object({ idc: z.string().min(1).max(64) });

function online(version: WorkflowVersion, test: boolean): boolean {
  return test ? version.onlineTest : version.onlineFormal;
}

function versionView(version: WorkflowVersion, test: boolean, current: WorkflowVersion | undefined) {
  return {
    id: version.id,
    name: version.name,
    number: version.number,
    current: version.id === current?.id,
    online: online(version, test),
    schema: version.definition.schema,
  };
}

/** Spec 001's `app`, with the version 4.1 asks for (the current one by default) and, if asked, every version. */
async function appView(
  sql: Queryable,
  publicUrl: string,
  app: WorkflowApp,
  caller: WorkflowCaller,
  options: { version?: string | undefined; includeVersions: boolean },
) {
  const versions = await versionsOf(sql, app.id);
  // The newest version online for the data mode is the one a start uses.
  const current = versions.find((version) => online(version, caller.test));
  const chosen = options.version
    ? versions.find((version) => version.id === options.version || String(version.number) === options.version)
    : current;
  if (options.version && !chosen)
    throw new WorkflowRefusal("VERSION_NOT_FOUND", `no version ${options.version} of ${app.code}`);
  const { rating, rated } = await appRatings(sql, app.id, caller.test);
  return {
    id: app.id,
    name: app.name,
    uri: `${publicUrl}${caller.test ? "/apis/v2d" : "/apis/v2"}/app/${app.code}`,
    code: app.code,
    abbreviation: app.abbreviation,
    description: app.description,
    tags: app.tags,
    icon: app.icon,
    palette: app.palette,
    department: app.department,
    contact: app.contact,
    recommend: app.recommendation,
    rating,
    rated,
    visible: app.visible,
    ready: app.ready && current !== undefined,
    system: "",
    currentVersion: chosen ? versionView(chosen, caller.test, current) : null,
    versions: options.includeVersions
      ? versions.map((version) => versionView(version, caller.test, current))
      : undefined,
  };
}

/** 4.2's parameters that are the app's own rather than a data mode's. */
const APP_WIDE_SETTINGS = ["ready", "visible", "recommendation", "department", "contact"] as const;

/**
 * Spec 001 4.1 and 4.2: a workflow app's administration data, and taking its versions on and off
 * line. Changing an app is for sys tokens: users become administrators of apps through the access
 * grants of 7.x, which this platform does not yet serve.
 */
export function workflowAppRoutes(deps: GatewayDeps, tenants: WorkflowTenants, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, tenants, mode);
  const findApp = async (db: Queryable, caller: WorkflowCaller, idc: string) => {
    const found = await workflowAppByIdOrCode(db, caller.tenantId, idc);
    if (!found || (caller.workflowCode && found.code !== caller.workflowCode)) {
      throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${idc}`);
    }
    return found;
  };

  operation(
    {
      method: "get",
      path: "/app/{idc}",
      operationId: "getApp",
      summary:
        "4.1 A workflow app (id or code): its fields, the form of its current version (or `version`), its versions",
      tag: "administration",
      scope: "sys_app",
      kinds: "u/s",
      params: idcParam,
      parameters: z.object({
        version: z.string().max(64).optional(),
        includeVersions: booleanParameter.optional(),
      }),
      entity: appSchema,
      entityName: "App",
    },
    async (_c, caller, { params, parameters }) => {
      const found = await findApp(sql, caller, params.idc);
      const view = await appView(sql, deps.config.http.publicUrl, found, caller, {
        version: parameters.version,
        includeVersions: parameters.includeVersions ?? false,
      });
      return { entities: [view] };
    },
  );

  operation(
    {
      method: "post",
      path: "/app/{idc}",
      operationId: "changeApp",
      summary:
        "4.2 Change a workflow app: take a version `online` or `offline` (for test data with `beta`, always on /apis/v2d), `ready`, `visible`, `recommendation`, `department`, `contact` (these five on /apis/v2 only)",
      tag: "administration",
      scope: "sys_app_edit",
      kinds: "u/s",
      params: idcParam,
      parameters: z.object({
        online: z.uuid().optional(),
        offline: z.uuid().optional(),
        beta: booleanParameter.optional(),
        recommendation: z.coerce.number().int().min(0).max(1_000_000).optional(),
        ready: booleanParameter.optional(),
        visible: booleanParameter.optional(),
        department: z.string().max(200).optional(),
        contact: z.string().max(200).optional(),
      }),
      entity: appSchema,
      entityName: "App",
    },
    async (_c, caller, { params, parameters }) => {
      if (!caller.sys)
        throw new WorkflowRefusal("NOT_AN_ADMINISTRATOR", "the user administers no workflow app");
      // The app's settings hold for both data modes: test data must not change formal work.
      const shared = APP_WIDE_SETTINGS.find((name) => caller.test && parameters[name] !== undefined);
      if (shared)
        throw new WorkflowRefusal(
          "DATA_INVALID",
          `${shared}: the app's settings are changed through /apis/v2`,
        );
      const changed = await transaction(sql, async (tx) => {
        const found = await findApp(tx, caller, params.idc);
        const test = caller.test || (parameters.beta ?? false);
        for (const [versionId, isOnline] of [
          [parameters.online, true],
          [parameters.offline, false],
        ] as const) {
          if (versionId && !(await setVersionOnline(tx, found.id, versionId, test, isOnline))) {
            throw new WorkflowRefusal("VERSION_NOT_FOUND", `no version ${versionId} of ${found.code}`);
          }
        }
        const updated = await updateWorkflowAppSettings(tx, found.id, parameters);
        return {
          entities: [
            await appView(tx, deps.config.http.publicUrl, updated, caller, { includeVersions: true }),
          ],
        };
      });
      await deps.db.changes.announce({ kind: "workflow-app", tenantId: caller.tenantId });
      return changed;
    },
  );
  return app;
}
