import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { type DownloadDeps, openFile, openThumbnail } from "../../files/download-access.ts";
import type { Config } from "../../runtime/config.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";
import { downloadRequest } from "../file-access.ts";
import { FILE_TAGS, fileAnswer, fileIdParams, fileResponse } from "../file-entity.ts";
import type { GatewayEnv } from "../gateway-env.ts";
import { serve } from "../operation.ts";
import { userContentHeaders } from "../user-content-headers.ts";

/** What the download routes need: the checks of each download, and the content's storage. */
export interface FileDownloadRoutesDeps {
  config: Config;
  storage: FileStorage;
  access: DownloadDeps;
}

const downloadQuery = z.object({
  access_token: z.string().optional().openapi({
    description:
      "for a secure file: an access token of the owning application (or of a user of it), or the file's own token",
  }),
});
const binary = z.string().openapi({ format: "binary" });
const secureDownload = {
  401: "a secure file without an access_token valid for it",
  403: "an access token of an application that does not own the file",
  429: "too many wrong file tokens for this file from this address; retry after Retry-After",
};

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

/** `GET /{id}`: the content, sandboxed, with Range and If-None-Match. */
export function downloadRoute(
  app: OpenAPIHono<GatewayEnv>,
  { config, storage, access }: FileDownloadRoutesDeps,
) {
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{id}",
    operationId: "downloadFile",
    tags: FILE_TAGS,
    summary: "Download a stored file (anonymous unless it is secure); Range and If-None-Match supported",
    request: {
      params: fileIdParams,
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
    },
    errors: [401, 403, 404, 416, 429, 503],
    meanings: secureDownload,
    ownInput: "all",
    handle: async (c) => {
      const file = await openFile(access, c.req.param("id"), downloadRequest(c, config), { spend: true });
      const etag = `"${file.sha256}"`;
      const headers: Record<string, string> = {
        ...userContentHeaders(file.mime, { filename: file.name }),
        etag,
        "accept-ranges": "bytes",
        // A secure file's answer is for its caller only.
        "cache-control":
          file.meta.secure === true ? "private, no-store" : "public, max-age=0, must-revalidate",
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
    },
  });
}

/** `GET /{id}/meta`: the file's record, under the same checks as its download. */
export function metaRoute(app: OpenAPIHono<GatewayEnv>, { config, access }: FileDownloadRoutesDeps) {
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{id}/meta",
    operationId: "getFileMeta",
    tags: FILE_TAGS,
    summary: "A file's record: name, type, size, dates, thumbnail sizes and meta",
    request: { params: fileIdParams, query: downloadQuery },
    responses: { 200: fileResponse },
    errors: [401, 403, 404, 429, 503],
    meanings: secureDownload,
    ownInput: "all",
    handle: async (c) => {
      const file = await openFile(access, c.req.param("id"), downloadRequest(c, config), { spend: false });
      return c.json(fileAnswer(config, file), 200);
    },
  });
}

/** `GET /{id}/thumb/{size}`: a thumbnail made for `thumbsizes`. */
export function thumbnailRoute(
  app: OpenAPIHono<GatewayEnv>,
  { config, storage, access }: FileDownloadRoutesDeps,
) {
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{id}/thumb/{size}",
    operationId: "getFileThumbnail",
    tags: FILE_TAGS,
    summary: "A thumbnail of an image, of a size asked for in `thumbsizes`",
    request: {
      params: fileIdParams.extend({
        size: z
          .string()
          .regex(/^\d{1,4}[x*]\d{1,4}$/)
          .openapi({ example: "64x64" }),
      }),
      query: downloadQuery,
    },
    responses: { 200: { description: "the thumbnail", content: { "image/*": { schema: binary } } } },
    errors: [400, 401, 403, 404, 429, 503],
    meanings: {
      ...secureDownload,
      404: "no such file, or no thumbnail of this size",
    },
    ownInput: "all",
    handle: async (c) => {
      const request = downloadRequest(c, config);
      const thumb = await openThumbnail(access, c.req.param("id"), c.req.param("size"), request);
      return new Response(storage.readStream(thumb.storageKey), {
        headers: { ...userContentHeaders(thumb.mime), "content-length": String(thumb.bytes) },
      });
    },
  });
}
