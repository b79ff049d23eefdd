import sharp, { type Sharp } from "sharp";
import { thumbSize } from "../contracts/files.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import type { FileStorage } from "../runtime/storage/file-storage.ts";
import { fileById, recordThumb } from "./file-store.ts";

export interface ThumbnailDeps {
  sql: Sql;
  storage: FileStorage;
}

/** Images larger than this many pixels are not thumbnailed (a decompression bomb guard). */
const MAX_INPUT_PIXELS = 100_000_000;

/**
 * The thumbnails a file asks for (`thumbsizes`), from its current content, stored and recorded.
 * Spec 001: stretched to the size asked when the ratio differs, never larger than the original and
 * never above 1024x768. JPEG originals give JPEG thumbnails; everything else PNG (transparency kept).
 * A file that is gone, not an image, or one sharp cannot read gets none.
 */
export async function makeFileThumbnails(deps: ThumbnailDeps, fileId: string, log: Logger): Promise<void> {
  const file = await fileById(deps.sql, fileId);
  if (!file?.mime.startsWith("image/") || file.thumbsizes.length === 0) return;
  const original = await deps.storage.readBytes(file.storageKey);
  let image: Sharp;
  let width: number;
  let height: number;
  try {
    image = sharp(original, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" });
    const metadata = await image.metadata();
    width = metadata.autoOrient?.width ?? metadata.width;
    height = metadata.autoOrient?.height ?? metadata.height;
  } catch (error) {
    log.info({ fileId, err: (error as Error).message }, "not an image sharp can read; no thumbnails");
    return;
  }
  const jpeg = file.mime === "image/jpeg";
  for (const name of file.thumbsizes) {
    const size = thumbSize(name);
    if (!size) continue;
    const resized = image
      .clone()
      .rotate()
      .resize(Math.min(size.width, width), Math.min(size.height, height), { fit: "fill" });
    const bytes = await (jpeg ? resized.jpeg({ quality: 82 }) : resized.png()).toBuffer();
    const storageKey = `thumbs/${file.id.slice(0, 2)}/${file.id}/${file.sha256.slice(0, 16)}-${size.name}.${jpeg ? "jpg" : "png"}`;
    await deps.storage.writeBytes(storageKey, bytes);
    await recordThumb(deps.sql, {
      fileId: file.id,
      size: size.name,
      sourceSha256: file.sha256,
      storageKey,
      mime: jpeg ? "image/jpeg" : "image/png",
      bytes: bytes.length,
    });
  }
}
