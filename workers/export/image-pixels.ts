import sharp from "sharp";

/**
 * The most pixels an image of a document may have, in the data or in the template: a few kilobytes
 * of PNG can declare gigabytes of pixels, for whoever decodes it (sharp here, or LibreOffice).
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** Bytes enough to tell a raster image by its first bytes. */
export const IMAGE_MAGIC_BYTES = 12;

/** Whether `head` (a file's first bytes) starts a raster image: PNG, JPEG, GIF, WebP, BMP or TIFF. */
export function isRasterImage(head: Buffer): boolean {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => head[index] === byte);
  return (
    starts(0x89, 0x50, 0x4e, 0x47) ||
    starts(0xff, 0xd8, 0xff) ||
    starts(0x47, 0x49, 0x46, 0x38) ||
    (starts(0x52, 0x49, 0x46, 0x46) && head.subarray(8, 12).toString("latin1") === "WEBP") ||
    starts(0x42, 0x4d) ||
    starts(0x49, 0x49, 0x2a, 0x00) ||
    starts(0x4d, 0x4d, 0x00, 0x2a)
  );
}

/** An image's size from its header (nothing is decoded), or undefined when it cannot be read. */
export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number } | undefined> {
  try {
    // Only the header is read, so sharp's own pixel limit (which would hide the size) is lifted.
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    return { width, height };
  } catch {
    return undefined;
  }
}
