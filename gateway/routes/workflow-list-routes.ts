import { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  APP_ACCESS,
  appRatings,
  appsPermitted,
  appsRecommended,
  appsToStart,
  processesPermitted,
} from "../../workflow/app-lists.ts";
import type { WorkflowDeps } from "../../workflow/workflow-deps.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { pageParameters } from "../workflow/directory-parameters.ts";
import { USER_LIST_FORMS } from "../workflow/user-list-forms.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { appDescriptionFields, profileRefSchema } from "../workflow/workflow-schemas.ts";

const appListSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    uri: z.string(),
    code: z.string(),
    ...appDescriptionFields,
    recommend: z.number().int(),
    rating: z.number().int().openapi({ description: "0-100, the mean of the rated processes' stars" }),
    rated: z.number().int(),
    visible: z.boolean(),
    ready: z.boolean().openapi({ description: "startable: ready, with a version online for the data mode" }),
    system: z.string(),
  })
  .openapi("WorkflowAppListItem");
const processListSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    uri: z.string(),
    tags: z.string(),
    entry: z.number().int(),
    create: z.number().int(),
    update: z.number().int(),
    sort: z.number().int().openapi({ description: "the time the list is ordered by" }),
    app: z.object({ id: z.uuid(), name: z.string(), code: z.string(), tags: z.string() }),
    owner: profileRefSchema,
    status: z.enum(["doing", "suspended", "done", "killed"]),
    priority: z.string(),
    rating: z.number().int().nullable(),
    review: z.string().nullable(),
    milestone: z.object({ name: z.string(), percent: z.number().int() }).nullable(),
  })
  .openapi("WorkflowProcessListItem");
const idcParam = z.object({ idc: z.string().min(1).max(64) });

/**
 * Spec 001's app lists (2.1, 4.3, 4.10) and the processes read by app permission (4.4, 4.11). A
 * user's lists under `/me`; their sys forms under `/user/{userId}` for any user of the application's
 * tenant.
 */
export function workflowListRoutes(
  deps: GatewayUses<"oauth" | "workflowTenants">,
  lists: WorkflowDeps,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const operation = workflowOperationsOn(app, deps, mode);

  for (const { at, label, whose, tokenFor, named } of USER_LIST_FORMS) {
    operation(
      {
        method: "get",
        path: `${at}/apps`,
        operationId: `get${whose}Apps`,
        summary: `2.1${label} The apps the user may start: ready, visible, with a version online for the data mode, and the user one of its starters when it names starters (at most 1000, by name; not paged, \`total\` 0)`,
        tag: "task query",
        ...tokenFor("app"),
        entity: appListSchema,
        entityName: "App",
      },
      async (_c, caller, input) => {
        const { apps } = await appsToStart(lists, caller, named(input));
        return { entities: apps };
      },
    );

    for (const access of APP_ACCESS) {
      const Access = access === "admin" ? "Administered" : "Viewable";
      operation(
        {
          method: "get",
          path: `${at}/apps/${access}`,
          operationId: `get${whose}${Access}Apps`,
          summary: `4.3${label} The apps the user ${access === "admin" ? "administers" : "may view as a guest or administrator"} (at most 1000, by name)`,
          tag: "administration",
          ...tokenFor("app"),
          entity: appListSchema,
          entityName: "App",
        },
        async (_c, caller, input) => {
          const { total, apps } = await appsPermitted(lists, caller, named(input), access);
          return { entities: apps, total };
        },
      );

      operation(
        {
          method: "get",
          path: `${at}/processes/${access}`,
          operationId: `get${whose}${Access}Processes`,
          summary: `4.4${label} Processes of the apps the user ${access === "admin" ? "administers" : "may view"}, newest first, paged (limit default 20, at most 1000); archived ones left out`,
          tag: "administration",
          ...tokenFor("process"),
          parameters: z.object(pageParameters),
          entity: processListSchema,
          entityName: "Process",
        },
        async (_c, caller, input) => {
          const page = input.parameters;
          const { total, processes } = await processesPermitted(lists, caller, named(input), access, page);
          return { entities: processes, total };
        },
      );
    }
  }

  operation(
    {
      method: "get",
      path: "/apps/recommended",
      operationId: "getRecommendedApps",
      summary:
        "4.10 Startable apps whose recommendation is above 0, highest first, paged (limit default 20, at most 1000); with `userId`, only those that user may start; a Global application names the tenant with `domain`",
      tag: "administration",
      scope: "sys_app",
      kinds: "sys",
      parameters: z.object(pageParameters),
      entity: appListSchema,
      entityName: "App",
    },
    async (_c, caller, { parameters }) => {
      const { total, apps } = await appsRecommended(lists, caller, parameters);
      return { entities: apps, total };
    },
  );

  operation(
    {
      method: "get",
      path: "/app/{idc}/ratings",
      operationId: "getAppRatings",
      summary:
        "4.11 The rated processes of an app (id or code), most recently changed first, paged (limit default 20, at most 1000)",
      tag: "administration",
      scope: "sys_app",
      kinds: "sys",
      params: idcParam,
      parameters: z.object(pageParameters),
      entity: processListSchema,
      entityName: "Process",
    },
    async (_c, caller, { params, parameters }) => {
      const { total, processes } = await appRatings(lists, caller, params.idc, parameters);
      return { entities: processes, total };
    },
  );

  return app;
}
