import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  EXPORT_FORMATS,
  EXPORT_MIME,
  type ExportFormat,
  type ExportJob,
  exportFieldSchema,
  exportJobProblem,
  exportJobSchema,
} from "../../contracts/export.ts";
import { jsonNestsDeeperThan, tooDeepDetail } from "../../contracts/json-nesting.ts";
import { exportToFiles } from "../../exports/export-files.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import { exportedFileResponse } from "../exported-file.ts";
import { fileUrl } from "../file-access.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { serve } from "../operation.ts";
import { platformUrls } from "../platform-urls.ts";
import { type RequestParameters, requestParameters } from "../workflow/request-parameters.ts";

type Parameters = RequestParameters;

/** A parameter that is JSON in a query string or form, or already a value in a JSON body. */
function jsonParameter(parameters: Parameters, name: string, maxDepth: number): unknown {
  const value = parameters[name];
  if (typeof value !== "string") return value;
  if (jsonNestsDeeperThan(value, maxDepth)) {
    throw new PlatformError(ErrorCode.InvalidArgument, `${name}: ${tooDeepDetail(maxDepth)}`);
  }
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `${name}: not valid JSON: ${(error as Error).message}`,
    );
  }
}

function integer(parameters: Parameters, name: string): number | undefined {
  const value = parameters[name];
  if (value === undefined || value === "") return undefined;
  const number = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(number))
    throw new PlatformError(ErrorCode.InvalidArgument, `${name}: not an integer`);
  return number;
}

function boolean(parameters: Parameters, name: string): boolean | undefined {
  const value = parameters[name];
  if (value === undefined || value === "") return undefined;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw new PlatformError(ErrorCode.InvalidArgument, `${name}: true or false`);
}

function template(parameters: Parameters): string | undefined {
  const value = parameters.template;
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw new PlatformError(ErrorCode.InvalidArgument, "template: a URI");
  return value;
}

const wantsJson = (c: Context<GatewayEnv>) => c.req.header("accept")?.includes("application/json") === true;

/** The export job a request asks for, checked at the edge. */
function exportJob(
  format: ExportFormat,
  parameters: Parameters,
  json: boolean,
  { maxDepth, ownUrls }: { maxDepth: number; ownUrls: string[] },
): ExportJob {
  const templateUri = template(parameters);
  const outputPrefix = `exports/${timeOrderedId()}`;
  const job = exportJobSchema.safeParse(
    format === "xlsx"
      ? {
          format,
          ...(templateUri ? { templateUri } : {}),
          xlsx: {
            data: jsonParameter(parameters, "data", maxDepth),
            fields: jsonParameter(parameters, "fields", maxDepth) ?? [],
            label: boolean(parameters, "label"),
            row: integer(parameters, "row"),
            column: integer(parameters, "column"),
          },
          outputPrefix,
          platformUrls: ownUrls,
        }
      : {
          format,
          templateUri,
          document: {
            data: jsonParameter(parameters, "data", maxDepth) ?? {},
            fields: jsonParameter(parameters, "fields", maxDepth) ?? [],
            page: format === "png" ? integer(parameters, "page") : undefined,
            allPages: format === "png" && json,
          },
          outputPrefix,
          platformUrls: ownUrls,
        },
  );
  if (!job.success) {
    if (format !== "xlsx" && !templateUri) {
      throw new PlatformError(ErrorCode.InvalidArgument, "template: required for a document export");
    }
    throw new PlatformError(ErrorCode.InvalidArgument, exportJobProblem(job.error.issues));
  }
  return job.data;
}

const parameterMeanings = {
  template: "URI of the template (.docx; .xlsx for a spreadsheet); required for docx, pdf and png",
  data: "documents: a map of field name to value; spreadsheets: rows of cells",
  fields: "the fields: name, type, label and merge (spreadsheets), groupName (documents)",
  label: "spreadsheets: a title row of the fields' labels first",
  row: "spreadsheets: the 0-based row to start at",
  column: "spreadsheets: the 0-based column to start at",
  page: "images: the 0-based page; a JSON answer without it lists every page",
};
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** The parameters as a JSON body carries them, with their JSON values. */
const exportParameters = z
  .object({
    template: z.string().max(2048).optional().openapi({ description: parameterMeanings.template }),
    data: z
      .union([z.record(z.string(), z.unknown()), z.array(z.array(cell))])
      .optional()
      .openapi({ description: parameterMeanings.data }),
    fields: z.array(exportFieldSchema).optional().openapi({ description: parameterMeanings.fields }),
    label: z.boolean().optional().openapi({ description: parameterMeanings.label }),
    row: z.number().int().min(0).optional().openapi({ description: parameterMeanings.row }),
    column: z.number().int().min(0).optional().openapi({ description: parameterMeanings.column }),
    page: z.number().int().min(0).optional().openapi({ description: parameterMeanings.page }),
  })
  .openapi("ExportParameters");
/** The parameters as text, in the query or a form: `data` and `fields` as JSON. */
const textParameters = z.object(
  Object.fromEntries(
    Object.entries(parameterMeanings).map(([name, description]) => [
      name,
      z.string().optional().openapi({ description }),
    ]),
  ),
);
const binary = { schema: z.string().openapi({ format: "binary" }) };

/** Spec 001's export service, at `{export_url}` = PUBLIC_URL/export. */
export function exportRoutes(deps: GatewayUses<"config" | "db" | "jobs" | "oauth" | "storage">) {
  const { config } = deps;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use(surface("platform"));

  // Documented, not validated by the framework: the parameters come in the query or any kind of body.
  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{format}",
    operationId: "exportDocument",
    tags: ["Export"],
    token: requireToken(deps.oauth.accessTokens, { scopes: [] }),
    summary: "Fill a template with data: a document (docx, pdf), page images (png) or a spreadsheet (xlsx)",
    description:
      "Parameters in the query, or in a JSON, form or multipart body (a body's value wins). `Accept: application/json` answers with links to the outputs, kept as files of the file service; otherwise the output streams back.",
    security: [{ bearer: [] }],
    request: {
      params: z.object({ format: z.enum(EXPORT_FORMATS) }),
      query: textParameters,
      headers: z.object({
        accept: z.string().optional().openapi({ description: "application/json for links to the outputs" }),
      }),
      body: {
        content: {
          "application/json": { schema: exportParameters },
          "application/x-www-form-urlencoded": { schema: textParameters },
          "multipart/form-data": { schema: textParameters },
        },
      },
    },
    responses: {
      200: {
        description: "the output, or with `Accept: application/json` links to every output",
        content: {
          ...Object.fromEntries(Object.values(EXPORT_MIME).map((mime) => [mime, binary])),
          "application/json": {
            schema: z
              .object({
                files: z.array(
                  z.object({
                    uri: z.string(),
                    page: z.number().int().optional().openapi({ description: "images: the 0-based page" }),
                  }),
                ),
              })
              .openapi("ExportedFiles"),
          },
        },
      },
    },
    errors: [400, 401, 404, 413, 500, 503],
    meanings: {
      404: "no such export format",
      500: "the export failed (a template that cannot be filled or converted)",
      503: "no export worker answered in time, or the converter is out of reach; retry later",
    },
    ownInput: "all",
    handle: async (c) => {
      const format = c.req.param("format") as ExportFormat;
      if (!EXPORT_FORMATS.includes(format)) {
        throw new PlatformError(
          ErrorCode.NotFound,
          `no export format ${JSON.stringify(format)}: one of ${EXPORT_FORMATS.join(", ")}`,
        );
      }
      const json = wantsJson(c);
      const job = exportJob(format, await requestParameters(c), json, {
        maxDepth: config.http.jsonMaxDepth,
        ownUrls: platformUrls(config),
      });
      if (json) {
        // Each output becomes a file of the file service; the answer links to them.
        const token = c.get("token");
        const owner = { applicationId: token.clientId, userId: token.userId, tenantId: token.tenantId };
        const files = await exportToFiles({ sql: deps.db.sql, jobs: deps.jobs }, job, owner);
        return c.json(
          { files: files.map(({ id, ...page }) => ({ uri: fileUrl(config, id), ...page })) },
          200,
        );
      }
      // Request/reply on an `export` worker, within EXPORT_TIMEOUT_MS.
      return exportedFileResponse(deps, await deps.jobs.call("export", job), `export.${format}`);
    },
  });
  return app;
}
