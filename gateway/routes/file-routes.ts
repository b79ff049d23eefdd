import { OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import { fileTypeFromBuffer } from "file-type";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  type FileEntity,
  fileMetaSchema,
  MAX_THUMB_SIZES,
  thumbSize,
  thumbSizesSchema,
} from "../../contracts/files.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import type { FileRecord } from "../../files/file-record.ts";
import {
  createFile,
  deleteFile,
  fileById,
  replaceContent,
  thumbOf,
  updateMeta,
} from "../../files/file-store.ts";
import type { Config } from "../../runtime/config.ts";
import type { StoredUpload } from "../../runtime/storage/file-storage.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import { errorResponses } from "../error-responses.ts";
import { downloadAccess, fileUrl, hashFileToken, requireOwner } from "../file-access.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { readMultipart, storeUpload } from "../multipart-upload.ts";
import { userContentHeaders } from "../user-content-headers.ts";
import { workflowResponse, workflowResponseSchema } from "../workflow/workflow-envelope.ts";

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Spec 001's times: Unix seconds. */
const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Spec 001's file record; the file token itself is never shown, only that one is set. */
export function fileEntity(config: Config, file: FileRecord): FileEntity {
  return {
    id: file.id,
    name: file.name,
    kind: "canvas.file",
    uri: fileUrl(config, file.id),
    mime: file.mime,
    size: file.size,
    createTime: unixSeconds(file.createdAt),
    lastModified: unixSeconds(file.updatedAt),
    thumbsizes: file.thumbsizes,
    sha1Hash: file.sha1Hash,
    tags: file.tags,
    meta: { ...file.meta, ...(file.tokenHash ? { token: "(set)" } : {}) },
  };
}

/** The type the content's first bytes show, or spec 001's fallback. */
async function sniffMime(head: Buffer): Promise<string> {
  return (await fileTypeFromBuffer(head))?.mime ?? "application/octet-stream";
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` over a file of `size` bytes; undefined for anything else. */
function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | undefined {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (match[1] === "") {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

const fileSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    kind: z.literal("canvas.file"),
    uri: z.string().openapi({ description: "the persistent address of the download, GET /file/{id}" }),
    mime: z.string(),
    size: z.number().int(),
    createTime: z.number().int(),
    lastModified: z.number().int(),
    thumbsizes: z.array(z.string()),
    sha1Hash: z.string(),
    tags: z.string(),
    meta: z
      .record(z.string(), z.unknown())
      .openapi({ description: "`secure` and the owner's keys; a file token shows only as `(set)`" }),
  })
  .openapi("File");
const fileResponse = {
  description: "Response<File>",
  content: { "application/json": { schema: workflowResponseSchema(fileSchema, "FileResponse") } },
};

const idParams = z.object({ id: z.uuid() });
const downloadQuery = z.object({
  access_token: z.string().optional().openapi({
    description:
      "for a secure file: an access token of the owning application (or of a user of it), or the file's own token",
  }),
});
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
const binary = z.string().openapi({ format: "binary" });
const secureDownload = {
  401: "a secure file without an access_token valid for it",
  403: "an access token of an application that does not own the file",
  429: "too many wrong file tokens for this file from this address; retry after Retry-After",
};
const ownerOnly = { 403: "the file belongs to another application" };
const tags = ["Files"];
const security = [{ bearer: [] }];

/**
 * Documented, not validated by the framework: uploads are read as they stream in, and a file id
 * that is not one is simply not found.
 */
const FILE_OPERATIONS: RouteConfig[] = [
  {
    method: "put",
    path: "/",
    operationId: "uploadFile",
    tags,
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
    responses: {
      200: fileResponse,
      ...errorResponses("platform", [400, 401, 413, 415, 503], {
        413: "the file is larger than the upload limit",
        415: "not multipart/form-data",
      }),
    },
  },
  {
    method: "get",
    path: "/{id}",
    operationId: "downloadFile",
    tags,
    summary: "Download a stored file (anonymous unless it is secure); Range and If-None-Match supported",
    request: {
      params: idParams,
      query: downloadQuery,
      headers: z.object({
        range: z.string().optional().openapi({ example: "bytes=0-1023" }),
        "if-none-match": z.string().optional(),
      }),
    },
    responses: {
      200: {
        description:
          "the file, under its own content type, sandboxed (CSP `sandbox`, `nosniff`); an attachment unless a raster image, PDF or plain text",
        content: { "*/*": { schema: binary } },
      },
      206: { description: "the requested byte range", content: { "*/*": { schema: binary } } },
      304: { description: "unchanged (If-None-Match)" },
      ...errorResponses("platform", [401, 403, 404, 416, 429, 503], secureDownload),
    },
  },
  {
    method: "post",
    path: "/{id}",
    operationId: "replaceFile",
    tags,
    summary: "Replace a file's content, keeping its id (the owning application only)",
    security,
    request: { params: idParams, body: upload },
    responses: {
      200: fileResponse,
      ...errorResponses("platform", [400, 401, 403, 404, 413, 415, 503], {
        ...ownerOnly,
        413: "the file is larger than the upload limit",
        415: "not multipart/form-data",
      }),
    },
  },
  {
    method: "delete",
    path: "/{id}",
    operationId: "deleteFile",
    tags,
    summary: "Delete a file (the owning application only); the answer is the file that was",
    security,
    request: { params: idParams },
    responses: { 200: fileResponse, ...errorResponses("platform", [401, 403, 404, 503], ownerOnly) },
  },
  {
    method: "get",
    path: "/{id}/meta",
    operationId: "getFileMeta",
    tags,
    summary: "A file's record: name, type, size, dates, thumbnail sizes and meta",
    request: { params: idParams, query: downloadQuery },
    responses: {
      200: fileResponse,
      ...errorResponses("platform", [401, 403, 404, 429, 503], secureDownload),
    },
  },
  {
    method: "post",
    path: "/{id}/meta",
    operationId: "updateFileMeta",
    tags,
    summary: "Set a file's meta (the owning application only); a key given as null is removed",
    description:
      "`secure`, a file token (`token`, with `tokenExpire` and `tokenDisposable`) for secure downloads, `thumbsizes`, and keys of the owner's own.",
    security,
    request: {
      params: idParams,
      body: {
        required: true,
        content: { "application/json": { schema: z.object({ meta: fileMetaSchema }) } },
      },
    },
    responses: {
      200: fileResponse,
      ...errorResponses("platform", [400, 401, 403, 404, 413, 503], ownerOnly),
    },
  },
  {
    method: "get",
    path: "/{id}/thumb/{size}",
    operationId: "getFileThumbnail",
    tags,
    summary: "A thumbnail of an image, of a size asked for in `thumbsizes`",
    request: {
      params: idParams.extend({
        size: z
          .string()
          .regex(/^\d{1,4}[x*]\d{1,4}$/)
          .openapi({ example: "64x64" }),
      }),
      query: downloadQuery,
    },
    responses: {
      200: { description: "the thumbnail", content: { "image/*": { schema: binary } } },
      ...errorResponses("platform", [400, 401, 403, 404, 429, 503], {
        ...secureDownload,
        404: "no such file, or no thumbnail of this size",
      }),
    },
  },
];

/** Spec 001's file service: upload, download, replace, delete, meta and thumbnails. */
export function fileRoutes(deps: GatewayDeps) {
  const { storage, config } = deps;
  const { accessTokens } = deps.oauth;
  const allowDownload = downloadAccess(deps);
  const app = new OpenAPIHono<GatewayEnv>();
  for (const operation of FILE_OPERATIONS) app.openAPIRegistry.registerPath(operation);
  // File operations answer real HTTP statuses with spec 001's Response envelope (never 200 for a failure).
  app.use(surface("platform"));
  const anyToken = requireToken(accessTokens, { scopes: [] });
  app.on("PUT", "/", anyToken);
  app.on(["POST", "DELETE"], "/:id", anyToken);
  app.on("POST", "/:id/meta", anyToken);

  const found = async (id: string): Promise<FileRecord> => {
    const file = FILE_ID.test(id) ? await fileById(deps.db.sql, id) : undefined;
    if (!file) throw new PlatformError(ErrorCode.NotFound, `no file ${id}`);
    return file;
  };

  /** Streams the upload to storage, then makes it the blob of its content. */
  const receive = async (c: Context<GatewayEnv>, id: string) => {
    const uploadKey = `uploads/${id}-${timeOrderedId()}`;
    // A refused upload is removed here: no file refers to it, so nothing else ever would.
    const discard = async (error: unknown): Promise<never> => {
      await storage.remove(uploadKey);
      throw error;
    };
    const upload = await readMultipart(c, "file", (stream) =>
      storeUpload(storage, uploadKey, stream, config.files.maxUploadBytes),
    ).catch(discard);
    if (!upload.file)
      throw new PlatformError(ErrorCode.InvalidArgument, 'file: required (the multipart field "file")');
    const stored: StoredUpload = upload.file.stored;
    const thumbsizes = upload.fields.get("thumbsizes");
    const sizes =
      thumbsizes === undefined
        ? undefined
        : thumbSizesSchema.safeParse(thumbsizes.split(",").filter(Boolean));
    if (sizes && !sizes.success)
      await discard(
        new PlatformError(
          ErrorCode.InvalidArgument,
          firstIssueMessage(sizes.error.issues, { under: "thumbsizes" }),
        ),
      );
    const storageKey = await storage.promote(uploadKey, stored.sha256);
    return {
      name: upload.file.filename.slice(0, 255),
      mime: await sniffMime(stored.head),
      upload: stored,
      storageKey,
      thumbsizes: sizes?.data,
    };
  };

  const makeThumbnails = async (file: FileRecord) => {
    if (file.thumbsizes.length > 0 && file.mime.startsWith("image/")) {
      await deps.jobs.enqueue("filesThumbs", { fileId: file.id }, { messageId: `${file.id}-${file.sha256}` });
    }
  };

  app.put("/", async (c) => {
    const token = c.get("token");
    const id = timeOrderedId();
    const received = await receive(c, id);
    const file = await createFile(deps.db.sql, {
      id,
      ...received,
      owner: { applicationId: token.clientId, userId: token.userId, tenantId: token.tenantId },
      meta: { secure: c.req.query("secure") === "true" },
      ...(received.thumbsizes ? { thumbsizes: received.thumbsizes } : {}),
    });
    try {
      await makeThumbnails(file);
    } catch (error) {
      // The caller is told it failed and will upload again: keep no file it never learnt about.
      await deleteFile(deps.db.sql, file.id);
      throw error;
    }
    return c.json(workflowResponse([fileEntity(config, file)]), 200);
  });

  app.get("/:id", async (c) => {
    const file = await found(c.req.param("id"));
    const etag = `"${file.sha256}"`;
    await allowDownload(c, file, { spend: true });
    const headers: Record<string, string> = {
      ...userContentHeaders(file.mime, { filename: file.name }),
      etag,
      "accept-ranges": "bytes",
      // A secure file's answer is for its caller only.
      "cache-control": file.meta.secure === true ? "private, no-store" : "public, max-age=0, must-revalidate",
    };
    if (
      c.req
        .header("if-none-match")
        ?.split(",")
        .some((tag) => tag.trim() === etag)
    ) {
      return new Response(null, { status: 304, headers: { etag } });
    }
    const range = byteRange(c.req.header("range"), file.size);
    if (range === "unsatisfiable") {
      c.header("content-range", `bytes */${file.size}`);
      throw new PlatformError(
        ErrorCode.RangeNotSatisfiable,
        `range: ${c.req.header("range")} is not within the file's ${file.size} bytes`,
      );
    }
    if (range) {
      return new Response(storage.readStream(file.storageKey, { range }), {
        status: 206,
        headers: {
          ...headers,
          "content-range": `bytes ${range.start}-${range.end}/${file.size}`,
          "content-length": String(range.end - range.start + 1),
        },
      });
    }
    return new Response(storage.readStream(file.storageKey), {
      headers: { ...headers, "content-length": String(file.size) },
    });
  });

  app.post("/:id", async (c) => {
    const file = await found(c.req.param("id"));
    requireOwner(file, c.get("token"));
    const received = await receive(c, file.id);
    const replaced = await replaceContent(deps.db.sql, file.id, received);
    if (!replaced) throw new PlatformError(ErrorCode.NotFound, `no file ${file.id}`);
    await makeThumbnails(replaced);
    return c.json(workflowResponse([fileEntity(config, replaced)]), 200);
  });

  app.delete("/:id", async (c) => {
    const file = await found(c.req.param("id"));
    requireOwner(file, c.get("token"));
    await deleteFile(deps.db.sql, file.id);
    // The content stays while other files share it; the blob sweeper removes it once unused.
    return c.json(workflowResponse([fileEntity(config, file)]), 200);
  });

  app.get("/:id/meta", async (c) => {
    const file = await found(c.req.param("id"));
    await allowDownload(c, file, { spend: false });
    return c.json(workflowResponse([fileEntity(config, file)]), 200);
  });

  app.post("/:id/meta", async (c) => {
    const file = await found(c.req.param("id"));
    requireOwner(file, c.get("token"));
    const body = (await c.req.json().catch(() => undefined)) as { meta?: unknown } | undefined;
    const parsed = fileMetaSchema.safeParse(body?.meta);
    if (!parsed.success) {
      throw new PlatformError(
        ErrorCode.InvalidArgument,
        firstIssueMessage(parsed.error.issues, { under: "meta" }),
      );
    }
    const { token, thumbsizes, ...given } = parsed.data;
    // Keys given replace those stored; a key given as null is removed.
    const meta: Record<string, unknown> = { ...file.meta };
    for (const [key, value] of Object.entries(given)) {
      if (value === null) delete meta[key];
      else meta[key] = value;
    }
    await updateMeta(deps.db.sql, file.id, {
      meta,
      ...(token === undefined ? {} : { tokenHash: token === null ? null : hashFileToken(token) }),
      ...(thumbsizes ? { thumbsizes } : {}),
    });
    const current = (await fileById(deps.db.sql, file.id))!;
    if (thumbsizes) await makeThumbnails(current);
    return c.json(workflowResponse([fileEntity(config, current)]), 200);
  });

  app.get("/:id/thumb/:size", async (c) => {
    const file = await found(c.req.param("id"));
    const size = thumbSize(c.req.param("size"));
    if (!size) throw new PlatformError(ErrorCode.InvalidArgument, `size: ${c.req.param("size")} is not NxM`);
    await allowDownload(c, file, { spend: true });
    const thumb = await thumbOf(deps.db.sql, file.id, size.name);
    if (!thumb) {
      throw new PlatformError(
        ErrorCode.NotFound,
        `no ${size.name} thumbnail of file ${file.id}: sizes are made from thumbsizes, for images`,
      );
    }
    return new Response(storage.readStream(thumb.storageKey), {
      headers: { ...userContentHeaders(thumb.mime), "content-length": String(thumb.bytes) },
    });
  });
  return app;
}
