import { z } from "zod";

/** Thumbnail sizes: `NxM` (or spec 001's `N*M`), at most 5, each side 1–1024 wide and 1–768 high. */
export const MAX_THUMB_SIZES = 5;
export const MAX_THUMB_WIDTH = 1024;
export const MAX_THUMB_HEIGHT = 768;

const THUMB_SIZE = /^(\d{1,4})[x*](\d{1,4})$/;

/** A thumbnail size in its canonical `NxM` form, or undefined when it is not one. */
export function thumbSize(text: string): { width: number; height: number; name: string } | undefined {
  const match = THUMB_SIZE.exec(text.trim());
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width < 1 || height < 1 || width > MAX_THUMB_WIDTH || height > MAX_THUMB_HEIGHT) return undefined;
  return { width, height, name: `${width}x${height}` };
}

export const thumbSizesSchema = z
  .array(z.string())
  .max(MAX_THUMB_SIZES, `at most ${MAX_THUMB_SIZES} thumbnail sizes`)
  .transform((sizes, context) => {
    const names: string[] = [];
    for (const size of sizes) {
      const parsed = thumbSize(size);
      if (!parsed) {
        context.addIssue({
          code: "custom",
          message: `${JSON.stringify(size)} is not a size NxM of at most ${MAX_THUMB_WIDTH}x${MAX_THUMB_HEIGHT}`,
        });
        return z.NEVER;
      }
      if (!names.includes(parsed.name)) names.push(parsed.name);
    }
    return names;
  });

/** 9999-12-31 23:59:59 UTC: a later time is taken for milliseconds, which spec 001 never sends. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** Spec 001's meta: the flags the service acts on, and any other keys the owner keeps there. */
export const fileMetaSchema = z
  .object({
    secure: z.boolean().optional(),
    /**
     * A file-service download token; stored hashed, never shown again. `null` removes it. Any
     * non-empty token, as clients choose their own: the gateway locks out an address that guesses.
     */
    token: z.string().min(1, "a token of at least 1 character").max(256).nullable().optional(),
    /** Unix time (seconds) after which the token no longer works. */
    tokenExpire: z
      .number()
      .int()
      .max(MAX_UNIX_SECONDS, "Unix seconds: this is past the year 9999 (milliseconds, perhaps)")
      .nullable()
      .optional(),
    tokenDisposable: z.boolean().optional(),
    thumbsizes: thumbSizesSchema.optional(),
  })
  .catchall(z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]))
  .refine((meta) => Object.keys(meta).length <= 50, "at most 50 meta keys");

export type FileMeta = z.infer<typeof fileMetaSchema>;

/** Spec 001's file record, as `Response<File>` carries it. */
export interface FileEntity {
  id: string;
  name: string;
  kind: "canvas.file";
  uri: string;
  mime: string;
  size: number;
  createTime: number;
  lastModified: number;
  thumbsizes: string[];
  sha1Hash: string;
  tags: string;
  meta: Record<string, unknown>;
}

/** A `files.thumbs` job: make the thumbnails of a file's current content. */
export const thumbsJobSchema = z.object({ fileId: z.uuid() });
