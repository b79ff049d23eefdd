import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { type ExportResult, exportJobSchema } from "../../contracts/export.ts";
import { createFile } from "../../runtime/directory/files.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { fileUrl } from "./file-routes.ts";

type Parameters = Record<string, unknown>;

/**
 * Spec 001 passes export parameters in the query string; large `data` may come in the body
 * instead, as a JSON object or a form with the same names. A body value wins over the query's.
 */
async function exportParameters(c: Context<GatewayEnv>): Promise<Parameters> {
  const parameters: Parameters = { ...c.req.query() };
  const type = c.req.header("content-type") ?? "";
  if (type.startsWith("application/json")) {
    const body = await c.req.json().catch(() => {
      throw new PlatformError(ErrorCode.InvalidArgument, "the body is not valid JSON");
    });
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new PlatformError(
        ErrorCode.InvalidArgument,
        "the body must be a JSON object of export parameters",
      );
    }
    Object.assign(parameters, body);
  } else if (type.startsWith("application/x-www-form-urlencoded")) {
    Object.assign(parameters, await c.req.parseBody());
  }
  return parameters;
}

/** A parameter that is JSON in a query string or form, or already a value in a JSON body. */
function json(parameters: Parameters, name: string): unknown {
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

/** Spec 001's export service, at `{export_url}` = PUBLIC_URL/export. */
export function exportRoutes(deps: GatewayDeps) {
  const { config } = deps;
  const app = new OpenAPIHono<GatewayEnv>();
  app.use("/export/*", surface("platform"));
  app.use("/export/*", requireToken(deps.oauth.accessTokens, { scopes: [] }));

  app.post("/export/xlsx", async (c) => {
    const parameters = await exportParameters(c);
    const template =
      typeof parameters.template === "string" && parameters.template !== "" ? parameters.template : undefined;
    const job = exportJobSchema.safeParse({
      format: "xlsx",
      ...(template ? { templateUri: template } : {}),
      xlsx: {
        data: json(parameters, "data"),
        fields: json(parameters, "fields") ?? [],
        label: boolean(parameters, "label"),
        row: integer(parameters, "row"),
        column: integer(parameters, "column"),
      },
      outputKey: `exports/${timeOrderedId()}.xlsx`,
    });
    if (!job.success) {
      const issue = job.error.issues[0]!;
      const at = issue.path.filter((p) => p !== "xlsx").join(".");
      throw new PlatformError(ErrorCode.InvalidArgument, `${at || "parameters"}: ${issue.message}`);
    }
    const result = (await deps.broker.request("export", job.data, {
      timeoutMs: config.export.timeoutMs,
    })) as ExportResult & {
      sha1: string;
      sha256: string;
    };
    if (c.req.header("accept")?.includes("application/json")) {
      // The document becomes a file of the file service; the answer links to it.
      const token = c.get("token");
      const id = timeOrderedId();
      await createFile(deps.db.sql, {
        id,
        name: "export.xlsx",
        mime: result.mime,
        upload: {
          key: result.outputKey,
          size: result.bytes,
          sha1: result.sha1,
          sha256: result.sha256,
          head: Buffer.alloc(0),
        },
        storageKey: result.outputKey,
        owner: { applicationId: token.clientId, userId: token.userId, tenantId: token.tenantId },
      });
      return c.json({ files: [{ uri: fileUrl(config, id) }] }, 200);
    }
    return new Response(deps.storage.readStream(result.outputKey), {
      headers: {
        "content-type": result.mime,
        "content-length": String(result.bytes),
        "content-disposition": 'attachment; filename="export.xlsx"',
      },
    });
  });
  return app;
}
