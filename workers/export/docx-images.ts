import bwipjs from "bwip-js";
import sharp, { type Metadata } from "sharp";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { MAX_IMAGE_PIXELS } from "./image-pixels.ts";

/** What an image placeholder shows: a picture fetched by URI, or a thing's code as a barcode. */
export type ImageSource = { kind: "uri"; uri: string } | { kind: "barcode"; code: string };

export interface PreparedImage {
  bytes: Buffer;
  extension: "png" | "jpeg";
  widthEmu: number;
  heightEmu: number;
}

const EMU_PER_PIXEL = 9525; // 914,400 EMU per inch at 96 pixels per inch
/** The widest an image is drawn: the text width of an A4 page with 2.5 cm margins (16 cm). */
const MAX_WIDTH_EMU = 5_760_000;
export const MAX_IMAGES_PER_DOCUMENT = 100;
/** The most image bytes one document fetches, all images together. */
export const MAX_IMAGE_BYTES_PER_DOCUMENT = 64 * 1024 * 1024;

/** Field name → declared type (`image`, `thing`…), from the export's `fields`. */
export function fieldTypesOf(fields: readonly { name: string; type?: string }[]): Map<string, string> {
  return new Map(fields.flatMap((field) => (field.type ? [[field.name, field.type]] : [])));
}

export const imageKey = (source: ImageSource) =>
  source.kind === "uri" ? `uri:${source.uri}` : `barcode:${source.code}`;

/**
 * The image a datum stands for, if any: a file object (`{name, uri}`), a URL in a field typed
 * `image`, or a thing (`{id, code, name}`, or a code in a field typed `thing`) drawn as a barcode.
 */
export function imageSourceOf(value: unknown, fieldType: string | undefined): ImageSource | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (typeof record.uri === "string" && fieldType !== "thing") return { kind: "uri", uri: record.uri };
    if (typeof record.code === "string" && (fieldType === "thing" || "id" in record)) {
      return { kind: "barcode", code: record.code };
    }
    return undefined;
  }
  if (typeof value === "string" && value !== "") {
    if (fieldType === "image") return { kind: "uri", uri: value };
    if (fieldType === "thing") return { kind: "barcode", code: value };
  }
  if (typeof value === "number" && fieldType === "thing") return { kind: "barcode", code: String(value) };
  return undefined;
}

/** Every image the data refers to, found by walking it (group items included), by key. */
export function imageSourcesIn(
  data: unknown,
  fieldTypes: ReadonlyMap<string, string>,
): Map<string, ImageSource> {
  const found = new Map<string, ImageSource>();
  const visit = (value: unknown, fieldType: string | undefined, depth: number) => {
    const source = imageSourceOf(value, fieldType);
    if (source) {
      found.set(imageKey(source), source);
      if (found.size > MAX_IMAGES_PER_DOCUMENT) {
        throw new PlatformError(
          ErrorCode.InvalidArgument,
          `data: more than ${MAX_IMAGES_PER_DOCUMENT} distinct images in one document`,
        );
      }
      return;
    }
    if (depth > 8 || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, fieldType, depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(value)) visit(item, fieldTypes.get(key), depth + 1);
  };
  visit(data, undefined, 0);
  return found;
}

async function barcode(code: string): Promise<Buffer> {
  try {
    return await bwipjs.toBuffer({
      bcid: "code128",
      text: code,
      scale: 2,
      height: 12,
      includetext: true,
      textxalign: "center",
    });
  } catch (error) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `data: ${JSON.stringify(code)} cannot be drawn as a barcode: ${String(error)}`,
    );
  }
}

/** Decodes an image for a document: PNG and JPEG kept as they are, other formats as PNG. */
async function prepare(bytes: Buffer, what: string): Promise<PreparedImage> {
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new PlatformError(ErrorCode.InvalidArgument, `data: ${what} is not an image`);
  }
  if (metadata.width * metadata.height > MAX_IMAGE_PIXELS) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `data: ${what} is ${metadata.width}×${metadata.height} pixels, more than ${MAX_IMAGE_PIXELS}`,
    );
  }
  const keep = metadata.format === "png" || metadata.format === "jpeg";
  const output = keep ? bytes : await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).png().toBuffer();
  const width = metadata.width * EMU_PER_PIXEL;
  const height = metadata.height * EMU_PER_PIXEL;
  const scale = Math.min(1, MAX_WIDTH_EMU / width);
  return {
    bytes: output,
    extension: metadata.format === "jpeg" ? "jpeg" : "png",
    widthEmu: Math.round(width * scale),
    heightEmu: Math.round(height * scale),
  };
}

/** Fetches and decodes the images of one document, a few at a time, within a total size. */
export async function loadImages(
  sources: ReadonlyMap<string, ImageSource>,
  fetchUri: (uri: string) => Promise<Buffer>,
  maxTotalBytes = MAX_IMAGE_BYTES_PER_DOCUMENT,
): Promise<Map<string, PreparedImage>> {
  const entries = [...sources];
  const loaded = new Map<string, PreparedImage>();
  let totalBytes = 0;
  const worker = async () => {
    for (let next = entries.shift(); next; next = entries.shift()) {
      const [key, source] = next;
      const bytes = source.kind === "uri" ? await fetchUri(source.uri) : await barcode(source.code);
      totalBytes += bytes.length;
      if (totalBytes > maxTotalBytes) {
        entries.length = 0;
        throw new PlatformError(
          ErrorCode.InvalidArgument,
          `data: the images of one document may not exceed ${maxTotalBytes} bytes together`,
        );
      }
      loaded.set(key, await prepare(bytes, source.kind === "uri" ? source.uri : source.code));
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, entries.length) }, worker));
  return loaded;
}

/** An inline picture run; namespaces declared on the spot so any template's root will do. */
export function drawingXml(image: PreparedImage, relationshipId: string, pictureId: number): string {
  const extent = `cx="${image.widthEmu}" cy="${image.heightEmu}"`;
  return (
    `<w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" distT="0" distB="0" distL="0" distR="0">` +
    `<wp:extent ${extent}/><wp:docPr id="${pictureId}" name="Picture ${pictureId}"/>` +
    `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
    `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="${pictureId}" name="Picture ${pictureId}"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="${relationshipId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext ${extent}/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>` +
    `</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>`
  );
}
