import { z } from "@hono/zod-openapi";
import type { FileEntity } from "../contracts/files.ts";
import type { FileRecord } from "../files/file-record.ts";
import type { Config } from "../runtime/config.ts";
import { fileUrl } from "./file-access.ts";
import { workflowResponse, workflowResponseSchema } from "./workflow/workflow-envelope.ts";

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

/** The file service's answer of one file: spec 001's Response envelope around its record. */
export function fileAnswer(config: Config, file: FileRecord) {
  return workflowResponse([fileEntity(config, file)]);
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

/** The documentation of that answer. */
export const fileResponse = {
  description: "Response<File>",
  content: { "application/json": { schema: workflowResponseSchema(fileSchema, "FileResponse") } },
};

/** The path parameter of every operation on one file. */
export const fileIdParams = z.object({ id: z.uuid() });
export const FILE_TAGS = ["Files"];
