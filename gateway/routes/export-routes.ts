import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportJob,
  type ExportResult,
  exportJobSchema,
} from "../../contracts/export.ts";
import { createFile } from "../../runtime/directory/files.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { type RequestParameters, requestParameters } from "../request-parameters.ts";
import { fileUrl } from "./file-routes.ts";

type Parameters = RequestParameters;

/** A parameter that is JSON in a query string or form, or already a value in a JSON body. */
function jsonParameter(parameters: Parameters, name: string): unknown {
  const value = parameters[name];
  if (typeof value !== "string") return value;
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

function invalid(issues: readonly { path: readonly PropertyKey[]; message: string }[]): PlatformError {
  const issue = issues[0]!;
  const at = issue.path.filter((p) => p !== "xlsx" && p !== "document").join(".");
  return new PlatformError(ErrorCode.InvalidArgument, `${at || "parameters"}: ${issue.message}`);
}

const wantsJson = (c: Context<GatewayEnv>) => c.req.header("accept")?.includes("application/json") === true;

/** The export job a request asks for, checked at the edge. */
function exportJob(format: ExportFormat, parameters: Parameters, json: boolean): ExportJob {
  const templateUri = template(parameters);
  const outputPrefix = `exports/${timeOrderedId()}`;
  const job = exportJobSchema.safeParse(
    format === "xlsx"
      ? {
          format,
          ...(templateUri ? { templateUri } : {}),
          xlsx: {
            data: jsonParameter(parameters, "data"),
            fields: jsonParameter(parameters, "fields") ?? [],
            label: boolean(parameters, "label"),
            row: integer(parameters, "row"),
            column: integer(parameters, "column"),
          },
          outputPrefix,
        }
      : {
          format,
          templateUri,
          document: {
            data: jsonParameter(parameters, "data") ?? {},
            fields: jsonParameter(parameters, "fields") ?? [],
            page: format === "png" ? integer(parameters, "page") : undefined,
            allPages: format === "png" && json,
          },
          outputPrefix,
        },
  );
  if (!job.success) {
    if (format !== "xlsx" && !templateUri) {
      throw new PlatformError(ErrorCode.InvalidArgument, "template: required for a document export");
    }
    throw invalid(job.error.issues);
  }
  return job.data;
}

/** Spec 001's export service, at `{export_url}` = PUBLIC_URL/export. */
export function exportRoutes(deps: GatewayDeps) {
  const { config } = deps;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use("/export/*", surface("platform"));
  app.use("/export/*", requireToken(deps.oauth.accessTokens, { scopes: [] }));

  app.post("/export/:format", async (c) => {
    const format = c.req.param("format") as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) {
      throw new PlatformError(
        ErrorCode.NotFound,
        `no export format ${JSON.stringify(format)}: one of ${EXPORT_FORMATS.join(", ")}`,
      );
    }
    const json = wantsJson(c);
    const job = exportJob(format, await requestParameters(c), json);
    const result = (await deps.broker.request("export", job, {
      timeoutMs: config.export.timeoutMs,
    })) as ExportResult;
    if (json) {
      // Each output becomes a file of the file service; the answer links to them.
      const token = c.get("token");
      const files: { uri: string; page?: number }[] = [];
      for (const output of result.outputs) {
        const id = timeOrderedId();
        await createFile(deps.db.sql, {
          id,
          name: output.page === undefined ? `export.${format}` : `export-${output.page}.${format}`,
          mime: result.mime,
          upload: {
            key: output.key,
            size: output.bytes,
            sha1: output.sha1,
            sha256: output.sha256,
            head: Buffer.alloc(0),
          },
          storageKey: output.key,
          owner: { applicationId: token.clientId, userId: token.userId, tenantId: token.tenantId },
        });
        files.push(
          output.page === undefined
            ? { uri: fileUrl(config, id) }
            : { uri: fileUrl(config, id), page: output.page },
        );
      }
      return c.json({ files }, 200);
    }
    const output = result.outputs[0]!;
    return new Response(deps.storage.readStream(output.key), {
      headers: {
        "content-type": result.mime,
        "content-length": String(output.bytes),
        "content-disposition": `attachment; filename="export.${format}"`,
      },
    });
  });
  return app;
}
