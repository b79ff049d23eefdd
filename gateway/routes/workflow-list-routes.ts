import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { DOCUMENT_FORMATS, exportJobProblem, exportJobSchema } from "../../contracts/export.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { type Queryable, transaction } from "../../runtime/database.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import {
  type ListScope,
  permittedApps,
  permittedProcesses,
  ratedProcesses,
  recommendedApps,
  startableApps,
} from "../../workflow/app-list-store.ts";
import { APP_ACCESS, appAdministrators } from "../../workflow/app-permission-store.ts";
import { workflowAppByIdOrCode } from "../../workflow/app-store.ts";
import { parseFormData } from "../../workflow/form-data.ts";
import {
  changeProcessData,
  type DataCaller,
  exportTemplateOf,
  requireDataAccess,
} from "../../workflow/process-data.ts";
import { type ProcessRow, processByRef, processRef } from "../../workflow/process-store.ts";
import { asPlatformError, errorMapping } from "../error-envelope.ts";
import { exportedFileResponse } from "../exported-file.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { platformUrls } from "../platform-urls.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { pageParameters } from "../workflow/directory-parameters.ts";
import { ownAppId } from "../workflow/own-workflow.ts";
import type { WorkflowCaller } from "../workflow/workflow-access.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { appDescriptionFields, profileRefSchema } from "../workflow/workflow-schemas.ts";
import { namedUser, type WorkflowTenants } from "../workflow/workflow-tenant.ts";

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
const dataSchema = z
  .record(z.string(), z.unknown())
  .openapi("ProcessData", { description: "the process's data: field name to value" });

const idParam = z.object({ id: z.string().min(1).max(64) });
const userParam = z.object({ userId: z.string().min(1).max(360) });
const idcParam = z.object({ idc: z.string().min(1).max(64) });

/**
 * The HTTP status of a failed file answer (2.10): spec 001 has file operations answer failures with a
 * non-200 status and the `Response` JSON, where other workflow operations answer 200.
 */
function fileFailureStatus(error: Error): ContentfulStatusCode {
  if (error instanceof WorkflowRefusal) {
    const kind = Math.floor(error.errno / 100);
    if (kind === 404 || kind === 403 || kind === 409) return kind;
    return kind === 422 ? 400 : 501;
  }
  return errorMapping(asPlatformError(error).code).status;
}

/** Keeps a failure of a file operation from answering 200: its envelope goes out with its own status. */
const fileFailures: MiddlewareHandler<GatewayEnv> = async function fileFailures(c, next) {
  await next();
  if (c.error && c.res.status === 200) {
    c.res = new Response(c.res.body, { status: fileFailureStatus(c.error), headers: c.res.headers });
  }
};

/**
 * Spec 001's app lists (2.1, 4.3, 4.10), the processes read by app permission (4.4, 4.11, 4.12) and
 * a process's data (2.9-2.11). A user's lists under `/me`; their sys forms under `/user/{userId}`
 * for any user of the application's tenant.
 */
export function workflowListRoutes(deps: GatewayDeps, tenants: WorkflowTenants, mode: WorkflowDataMode) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const apiBase = `${deps.config.http.publicUrl}${mode.base}`;
  const operation = workflowOperationsOn(app, deps, tenants, mode);
  const scopeOf = (caller: WorkflowCaller): ListScope => ({
    tenantId: caller.tenantId,
    test: caller.test,
    appCode: caller.workflowCode,
    apiBase,
  });
  /** The user a list is about: the user token's own, or the one a sys form's path names. */
  const subject = (caller: WorkflowCaller, named: string | undefined) =>
    named === undefined ? caller.userId! : namedUser(sql, caller.tenantId, named);
  const dataCaller = async (db: Queryable, caller: WorkflowCaller): Promise<DataCaller> => ({
    sys: caller.sys,
    userId: caller.userId,
    appId: await ownAppId(db, caller),
  });
  const readableProcess = async (caller: WorkflowCaller, id: string): Promise<ProcessRow> => {
    const ref = processRef(id);
    const process = ref ? await processByRef(sql, caller.tenantId, caller.test, ref) : undefined;
    if (!process) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${id}`);
    await requireDataAccess(sql, await dataCaller(sql, caller), process, "view");
    return process;
  };

  for (const sysForm of [false, true]) {
    const at = sysForm ? "/user/{userId}" : "/me";
    const label = sysForm ? " (sys form: a user of the tenant, by account or id)" : "";
    const whose = sysForm ? "User" : "My";
    const params = sysForm ? userParam : undefined;
    const named = (input: { params: object }) =>
      sysForm ? (input.params as { userId: string }).userId : undefined;

    operation(
      {
        method: "get",
        path: `${at}/apps`,
        operationId: `get${whose}Apps`,
        summary: `2.1${label} The apps the user may start: ready, visible, with a version online for the data mode (at most 1000, by name)`,
        tag: "task query",
        scope: sysForm ? "sys_app" : "app",
        kinds: sysForm ? "sys" : "user",
        ...(params ? { params } : {}),
        entity: appListSchema,
        entityName: "App",
      },
      async (_c, caller, input) => {
        await subject(caller, named(input));
        const { total, apps } = await startableApps(sql, scopeOf(caller));
        return { entities: apps, total };
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
          scope: sysForm ? "sys_app" : "app",
          kinds: sysForm ? "sys" : "user",
          ...(params ? { params } : {}),
          entity: appListSchema,
          entityName: "App",
        },
        async (_c, caller, input) => {
          const userId = await subject(caller, named(input));
          const { total, apps } = await permittedApps(sql, scopeOf(caller), userId, access);
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
          scope: sysForm ? "sys_process" : "process",
          kinds: sysForm ? "sys" : "user",
          ...(params ? { params } : {}),
          parameters: z.object(pageParameters),
          entity: processListSchema,
          entityName: "Process",
        },
        async (_c, caller, input) => {
          const userId = await subject(caller, named(input));
          const { start, limit } = input.parameters;
          const { total, processes } = await permittedProcesses(sql, scopeOf(caller), userId, access, {
            start,
            limit,
          });
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
        "4.10 Startable apps whose recommendation is above 0, highest first, paged (limit default 20, at most 1000); a Global application names the tenant with `domain`",
      tag: "administration",
      scope: "sys_app",
      kinds: "sys",
      parameters: z.object(pageParameters),
      entity: appListSchema,
      entityName: "App",
    },
    async (_c, caller, { parameters }) => {
      const { total, apps } = await recommendedApps(sql, scopeOf(caller), parameters);
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
      const found = await workflowAppByIdOrCode(sql, caller.tenantId, params.idc);
      if (!found || (caller.workflowCode && found.code !== caller.workflowCode))
        throw new WorkflowRefusal("APP_NOT_FOUND", `no workflow ${params.idc}`);
      const { total, processes } = await ratedProcesses(sql, scopeOf(caller), found.id, parameters);
      return { entities: processes, total };
    },
  );

  operation(
    {
      method: "get",
      path: "/process/{id}/data",
      operationId: "getProcessData",
      summary: "2.9 The data of a process (serial number or id), as entities[0]",
      tag: "task query",
      scope: "process",
      kinds: "u/s",
      params: idParam,
      entity: dataSchema,
      entityName: "ProcessData",
    },
    async (_c, caller, { params }) => {
      const process = await readableProcess(caller, params.id);
      return { entities: [process.data] };
    },
  );

  operation(
    {
      method: "post",
      path: "/process/{id}/data",
      operationId: "changeProcessData",
      summary:
        "2.11 Merge fields into a process's data (`data`: a JSON map), each checked against the form of its version; refused once the process has ended",
      tag: "task query",
      scope: "process_edit",
      kinds: "u/s",
      params: idParam,
      parameters: z.object({
        data: z.union([z.string().max(1_000_000), z.record(z.string(), z.unknown())]),
      }),
      entity: dataSchema,
      entityName: "ProcessData",
    },
    async (_c, caller, { params, parameters }) => {
      const change = parseFormData(parameters.data, deps.config.http.jsonMaxDepth);
      const ref = processRef(params.id);
      if (!ref) throw new WorkflowRefusal("PROCESS_NOT_FOUND", `no process ${params.id}`);
      const data = await transaction(sql, async (tx) =>
        changeProcessData(
          tx,
          { tenantId: caller.tenantId, test: caller.test, ref },
          await dataCaller(tx, caller),
          change,
        ),
      );
      return { entities: [data] };
    },
  );

  app.use("/process/:id/data/:format", fileFailures);
  operation(
    {
      method: "get",
      path: "/process/{id}/data/{format}",
      operationId: "exportProcessData",
      summary:
        "2.10 The process's data filled into an export template of its version (`docTemplate`: its id, or its name when unique; the first by default), streamed as docx, pdf or png (`page`, 0-based); a failure answers a non-200 status with the Response JSON",
      tag: "task query",
      scope: "process",
      kinds: "u/s",
      params: idParam.extend({ format: z.enum(DOCUMENT_FORMATS) }),
      parameters: z.object({
        docTemplate: z.string().min(1).max(200).optional(),
        page: z.coerce.number().int().min(0).max(10_000).optional(),
      }),
      entity: z.string().openapi({ format: "binary" }),
      entityName: "the file (docx, pdf or png) on success",
    },
    async (_c, caller, { params, parameters }) => {
      const process = await readableProcess(caller, params.id);
      const { template, fields } = await exportTemplateOf(sql, process, parameters.docTemplate);
      const job = exportJobSchema.safeParse({
        format: params.format,
        templateUri: template.uri,
        document: {
          data: process.data,
          fields,
          page: params.format === "png" ? parameters.page : undefined,
        },
        outputPrefix: `exports/${timeOrderedId()}`,
        platformUrls: platformUrls(deps.config),
      });
      if (!job.success)
        throw new PlatformError(ErrorCode.InvalidArgument, exportJobProblem(job.error.issues));
      const result = await deps.jobs.call("export", job.data);
      return exportedFileResponse(deps, result, `${process.entry}.${params.format}`);
    },
  );

  operation(
    {
      method: "get",
      path: "/process/{id}/{cate}",
      operationId: "getProcessPeople",
      summary:
        "4.12 People of a process (serial number or id) by `cate`: `admin`, the administrators of its app; other values are refused with NOT_SUPPORTED",
      tag: "administration",
      scope: "process",
      kinds: "u/s",
      params: idParam.extend({ cate: z.string().min(1).max(64) }),
      entity: profileRefSchema,
      entityName: "Profile",
    },
    async (_c, caller, { params }) => {
      if (params.cate !== "admin")
        throw new WorkflowRefusal("NOT_SUPPORTED", `4.12: cate ${params.cate} is not served; admin is`);
      const process = await readableProcess(caller, params.id);
      const administrators = await appAdministrators(sql, process.appId);
      return { entities: administrators, total: administrators.length };
    },
  );
  return app;
}
