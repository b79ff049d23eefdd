import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { DOCUMENT_FORMATS, exportJobProblem, exportJobSchema } from "../../contracts/export.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import {
  changeDataOf,
  processPeople,
  processToExport,
  readableProcess,
} from "../../workflow/process-data-service.ts";
import { asPlatformError, errorMapping } from "../error-envelope.ts";
import { exportedFileResponse } from "../exported-file.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { platformUrls } from "../platform-urls.ts";
import type { WorkflowDataMode } from "../workflow/data-mode.ts";
import { idParam } from "../workflow/directory-parameters.ts";
import { workflowOperationsOn } from "../workflow/workflow-operation.ts";
import { profileRefSchema } from "../workflow/workflow-schemas.ts";

const dataSchema = z
  .record(z.string(), z.unknown())
  .openapi("ProcessData", { description: "the process's data: field name to value" });

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
 * Spec 001's operations on a process's data (2.9-2.11) and its people (4.12). Mounted after the
 * process routes: 4.12's /process/{id}/{cate} answers what their fixed paths do not.
 */
export function workflowDataRoutes(
  deps: GatewayUses<"config" | "db" | "jobs" | "oauth" | "storage" | "workflowTenants">,
  mode: WorkflowDataMode,
) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const operation = workflowOperationsOn(app, deps, mode);

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
      const process = await readableProcess(sql, caller, params.id);
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
      const jsonMaxDepth = deps.config.http.jsonMaxDepth;
      return { entities: [await changeDataOf({ sql, jsonMaxDepth }, caller, params.id, parameters.data)] };
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
      const { process, template, fields } = await processToExport(
        sql,
        caller,
        params.id,
        parameters.docTemplate,
      );
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
      const administrators = await processPeople(sql, caller, params.id, params.cate);
      return { entities: administrators, total: administrators.length };
    },
  );
  return app;
}
