import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { fileMetaSchema, MAX_THUMB_SIZES } from "../../contracts/files.ts";
import { deleteOwnFile, replaceFile, updateFileMeta } from "../../files/file-changes.ts";
import { type FormReader, type IntakeDeps, uploadFile } from "../../files/file-intake.ts";
import type { Config } from "../../runtime/config.ts";
import { FILE_TAGS, fileAnswer, fileIdParams, fileResponse } from "../file-entity.ts";
import type { GatewayEnv } from "../gateway-env.ts";
import { readMultipart, storeUpload } from "../multipart-upload.ts";
import { serve } from "../operation.ts";

/** What the routes that change files need: the file service's intake, and the caller's token. */
export interface FileUploadRoutesDeps {
  config: Config;
  files: IntakeDeps;
  anyToken: MiddlewareHandler<GatewayEnv>;
}

const upload = {
  required: true,
  content: {
    "multipart/form-data": {
      schema: z.object({
        file: z.string().openapi({ format: "binary", description: "the content" }),
        thumbsizes: z
          .string()
          .optional()
          .openapi({
            description: `thumbnails to make of an image: up to ${MAX_THUMB_SIZES} sizes NxM, comma-separated`,
            example: "64x64,320x240",
          }),
      }),
    },
  },
};
const ownerOnly = { 403: "the file belongs to another application" };
const tooLarge = {
  413: "the file is larger than the upload limit",
  415: "not multipart/form-data",
};
const security = [{ bearer: [] }];

/** The request's form, its `file` part streamed into storage as it comes, within the upload limit. */
function formOf(c: Context<GatewayEnv>, { config, files }: FileUploadRoutesDeps): FormReader {
  return (key) =>
    readMultipart(c, "file", (stream) =>
      storeUpload(files.storage, key, stream, config.files.maxUploadBytes),
    );
}

/** `PUT /`: a new file of the caller's application. */
export function uploadRoute(app: OpenAPIHono<GatewayEnv>, deps: FileUploadRoutesDeps) {
  serve(app, {
    surface: "platform",
    method: "put",
    path: "/",
    operationId: "uploadFile",
    tags: FILE_TAGS,
    summary: "Upload a file (multipart field `file`); its type is read from its content",
    security,
    request: {
      query: z.object({
        secure: z
          .enum(["true", "false"])
          .optional()
          .openapi({ description: "downloads need an access_token" }),
      }),
      body: upload,
    },
    responses: { 200: fileResponse },
    errors: [400, 401, 413, 415, 503],
    meanings: tooLarge,
    token: deps.anyToken,
    ownInput: "all",
    handle: async (c) => {
      const token = c.get("token");
      const file = await uploadFile(deps.files, formOf(c, deps), {
        owner: { applicationId: token.clientId, userId: token.userId, tenantId: token.tenantId },
        secure: c.req.query("secure") === "true",
      });
      return c.json(fileAnswer(deps.config, file), 200);
    },
  });
}

/** `POST /{id}`: new content for a file, its id kept. */
export function replaceRoute(app: OpenAPIHono<GatewayEnv>, deps: FileUploadRoutesDeps) {
  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{id}",
    operationId: "replaceFile",
    tags: FILE_TAGS,
    summary: "Replace a file's content, keeping its id (the owning application only)",
    security,
    request: { params: fileIdParams, body: upload },
    responses: { 200: fileResponse },
    errors: [400, 401, 403, 404, 413, 415, 503],
    meanings: { ...ownerOnly, ...tooLarge },
    token: deps.anyToken,
    ownInput: "all",
    handle: async (c) => {
      const file = await replaceFile(deps.files, c.req.param("id"), c.get("token"), formOf(c, deps));
      return c.json(fileAnswer(deps.config, file), 200);
    },
  });
}

/** `DELETE /{id}`. */
export function deleteRoute(app: OpenAPIHono<GatewayEnv>, deps: FileUploadRoutesDeps) {
  serve(app, {
    surface: "platform",
    method: "delete",
    path: "/{id}",
    operationId: "deleteFile",
    tags: FILE_TAGS,
    summary: "Delete a file (the owning application only); the answer is the file that was",
    security,
    request: { params: fileIdParams },
    responses: { 200: fileResponse },
    errors: [401, 403, 404, 503],
    meanings: ownerOnly,
    token: deps.anyToken,
    ownInput: "all",
    handle: async (c) => {
      const file = await deleteOwnFile(deps.files, c.req.param("id"), c.get("token"));
      return c.json(fileAnswer(deps.config, file), 200);
    },
  });
}

/** `POST /{id}/meta`: the owner's meta, a file token and thumbnail sizes. */
export function metaUpdateRoute(app: OpenAPIHono<GatewayEnv>, deps: FileUploadRoutesDeps) {
  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{id}/meta",
    operationId: "updateFileMeta",
    tags: FILE_TAGS,
    summary: "Set a file's meta (the owning application only); a key given as null is removed",
    description:
      "`secure`, a file token (`token`, with `tokenExpire` and `tokenDisposable`) for secure downloads, `thumbsizes`, and keys of the owner's own.",
    security,
    request: {
      params: fileIdParams,
      body: {
        required: true,
        content: { "application/json": { schema: z.object({ meta: fileMetaSchema }) } },
      },
    },
    responses: { 200: fileResponse },
    errors: [400, 401, 403, 404, 413, 503],
    meanings: ownerOnly,
    token: deps.anyToken,
    ownInput: "all",
    handle: async (c) => {
      const body = (await c.req.json().catch(() => undefined)) as { meta?: unknown } | undefined;
      const file = await updateFileMeta(deps.files, c.req.param("id"), c.get("token"), body?.meta);
      return c.json(fileAnswer(deps.config, file), 200);
    },
  });
}
