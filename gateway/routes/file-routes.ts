import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { Config } from "../../runtime/config.ts";
import { fileById } from "../../runtime/directory/files.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { surface } from "../middleware/surface.ts";

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The persistent address of a stored file (spec 001's file service `GET /file/{id}`). */
export function fileUrl(config: Config, fileId: string): string {
  return `${config.http.publicUrl}/file/${fileId}`;
}

/** Spec 001's file service: download (anonymous for files not marked secure). */
export function fileRoutes(deps: GatewayDeps) {
  const app = new OpenAPIHono<GatewayEnv>();
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/file/{id}",
    tags: ["Files"],
    summary: "Download a stored file (anonymous unless it is marked secure)",
    request: { params: z.object({ id: z.uuid() }) },
    responses: {
      200: {
        description: "the file",
        content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
      },
      404: { description: "no such file" },
    },
  });
  app.use("/file/*", surface("workflow"));
  app.get("/file/:id", async (c) => {
    const id = c.req.param("id");
    const file = FILE_ID.test(id) ? await fileById(deps.db.sql, id) : undefined;
    if (!file) throw new PlatformError(ErrorCode.NotFound, `no file ${id}`);
    if (file.meta.secure === true) {
      throw new PlatformError(
        ErrorCode.Unauthenticated,
        "this file is secure: its download needs an access_token",
      );
    }
    return new Response(deps.storage.readStream(file.storageKey), {
      headers: {
        "content-type": file.mime,
        "content-length": String(file.size),
        "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        etag: `"${file.sha1Hash}"`,
      },
    });
  });
  return app;
}
