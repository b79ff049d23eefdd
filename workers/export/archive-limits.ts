import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createInflateRaw } from "node:zlib";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { IMAGE_MAGIC_BYTES, imageSize, isRasterImage, MAX_IMAGE_PIXELS } from "./image-pixels.ts";
import {
  ArchiveRefused,
  END_RECORD_WINDOW,
  endsWithEndRecord,
  quoted,
  STORED,
  type ZipEntry,
  zipEntries,
} from "./zip-entries.ts";

/** What one archive (a template, with the archives inside it) may inflate to. */
export interface ArchiveLimits {
  /** Bytes all entries may inflate to together (EXPORT_ARCHIVE_MAX_BYTES). */
  maxBytes: number;
  /** Times its compressed size an entry may inflate to, past RATIO_FLOOR_BYTES (EXPORT_ARCHIVE_MAX_RATIO). */
  maxRatio: number;
  /** Entries, those of the archives inside it included (EXPORT_ARCHIVE_MAX_ENTRIES). */
  maxEntries: number;
}

/** Entries inflating to no more than this are never refused for their ratio: small XML compresses very well. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;
/** Archives inside archives are checked too (a chart's workbook inside a document), this many levels down. */
export const MAX_NESTING = 2;
const CHUNK_BYTES = 64 * 1024;
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** Bytes enough to tell an archive or an image by its start. */
const HEAD_BYTES = Math.max(ZIP_MAGIC.length, IMAGE_MAGIC_BYTES);

interface Budget {
  bytes: number;
  entries: number;
}

/**
 * Refuses an archive (a .docx or .xlsx template) that inflates past `limits`, before any parser
 * opens it. Every entry is inflated here, on zlib's thread pool and a chunk at a time, its output
 * counted and dropped, and the inflation stopped at the first limit it crosses: the sizes an
 * archive declares are checked too, but never trusted. The refusal is the sender's error: a 400
 * naming the entry and the limit.
 */
export async function checkArchive(zip: Buffer, limits: ArchiveLimits, what = "template"): Promise<void> {
  try {
    await checkEntries(zip, limits, { bytes: 0, entries: 0 }, "", 0);
  } catch (error) {
    if (error instanceof ArchiveRefused)
      throw new PlatformError(ErrorCode.InvalidArgument, `${what}: ${error.message}`);
    throw error;
  }
}

async function checkEntries(
  zip: Buffer,
  limits: ArchiveLimits,
  budget: Budget,
  path: string,
  depth: number,
): Promise<void> {
  let entries: ZipEntry[] | undefined;
  try {
    entries = zipEntries(zip, limits.maxEntries - budget.entries, () => tooManyEntries(limits));
  } catch (error) {
    if (!(error instanceof ArchiveRefused) || error instanceof TooManyEntries || path === "") throw error;
    throw new ArchiveRefused(`the archive ${quoted(path.slice(0, -2))} inside it: ${error.message}`);
  }
  // Bytes with no end record are left to the parser, which refuses them having inflated nothing.
  if (!entries) return;
  budget.entries += entries.length;
  if (budget.entries > limits.maxEntries) throw tooManyEntries(limits);

  // Sizes declared past a limit are refused before anything is inflated.
  let declared = budget.bytes;
  for (const entry of entries) {
    const name = path + entry.name;
    if (entry.uncompressedSize > ratioCap(entry, limits)) throw ratioExceeded(name, limits);
    declared += entry.uncompressedSize;
    if (declared > limits.maxBytes) throw totalExceeded(name, limits);
  }
  for (const entry of entries) await checkEntry(zip, entry, limits, budget, path, depth);
}

function ratioCap(entry: ZipEntry, limits: ArchiveLimits): number {
  return Math.max(RATIO_FLOOR_BYTES, entry.compressedSize * limits.maxRatio);
}

async function checkEntry(
  zip: Buffer,
  entry: ZipEntry,
  limits: ArchiveLimits,
  budget: Budget,
  path: string,
  depth: number,
): Promise<void> {
  const name = path + entry.name;
  const data = zip.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  const cap = ratioCap(entry, limits);
  let inflated = 0;
  /** What the entry's first bytes show it to be, once there are enough of them. */
  let kind: "archive" | "image" | "other" | undefined;
  /** Its bytes while they are needed: until it is told apart, and then an archive's or an image's. */
  let kept: Buffer[] = [];
  let tail: Buffer = Buffer.alloc(0);
  const tellApart = (): ArchiveRefused | undefined => {
    const head = Buffer.concat(kept).subarray(0, HEAD_BYTES);
    kind = head.subarray(0, ZIP_MAGIC.length).equals(ZIP_MAGIC)
      ? "archive"
      : isRasterImage(head)
        ? "image"
        : "other";
    if (kind === "other") {
      keepTail(Buffer.concat(kept));
      kept = [];
    }
    return kind === "archive" && depth >= MAX_NESTING ? nestedTooDeep(name) : undefined;
  };
  const keepTail = (chunk: Buffer) => {
    tail = chunk.length >= END_RECORD_WINDOW ? chunk : Buffer.concat([tail, chunk]);
    tail = tail.subarray(Math.max(0, tail.length - END_RECORD_WINDOW));
  };
  /** Counts a chunk of output: the refusal it brings, if any. */
  const take = (chunk: Buffer): ArchiveRefused | undefined => {
    inflated += chunk.length;
    if (inflated > entry.uncompressedSize)
      return new ArchiveRefused(
        `the entry ${quoted(name)} inflates past the ${entry.uncompressedSize} bytes its header declares`,
      );
    if (inflated > cap) return ratioExceeded(name, limits);
    if (budget.bytes + inflated > limits.maxBytes) return totalExceeded(name, limits);
    if (kind === "other") keepTail(chunk);
    else kept.push(chunk);
    return kind === undefined && inflated >= HEAD_BYTES ? tellApart() : undefined;
  };
  await inflate(data, entry.method, name, take);
  if (inflated !== entry.uncompressedSize)
    throw new ArchiveRefused(
      `the entry ${quoted(name)} inflates to ${inflated} bytes, not the ${entry.uncompressedSize} its header declares`,
    );
  budget.bytes += inflated;
  if (kind === undefined) {
    const refusal = tellApart();
    if (refusal) throw refusal;
  }
  if (kind === "image") await checkImage(Buffer.concat(kept), name);
  // A zip is read from its end record, wherever it starts: such an entry is inflated again, kept this time.
  if (kind === "other" && endsWithEndRecord(tail)) {
    if (depth >= MAX_NESTING) throw nestedTooDeep(name);
    kept = [];
    await inflate(data, entry.method, name, (chunk) => {
      kept.push(chunk);
      return undefined;
    });
    kind = "archive";
  }
  if (kind === "archive") await checkEntries(Buffer.concat(kept), limits, budget, `${name}!/`, depth + 1);
}

/** LibreOffice decodes a document's pictures to make its PDF and page images: their size is bounded. */
async function checkImage(image: Buffer, name: string): Promise<void> {
  const size = await imageSize(image);
  if (size && size.width * size.height > MAX_IMAGE_PIXELS)
    throw new ArchiveRefused(
      `the image ${quoted(name)} is ${size.width}×${size.height} pixels, more than ${MAX_IMAGE_PIXELS}`,
    );
}

/** Inflates an entry's `data` a chunk at a time into `take`, stopping at the first refusal it answers. */
async function inflate(
  data: Buffer,
  method: number,
  name: string,
  take: (chunk: Buffer) => ArchiveRefused | undefined,
): Promise<void> {
  let refusal: ArchiveRefused | undefined;
  if (method === STORED) refusal = take(data);
  else if (data.length > 0) {
    try {
      await pipeline(
        Readable.from([data]),
        createInflateRaw({ chunkSize: CHUNK_BYTES }),
        async (chunks: AsyncIterable<Buffer>) => {
          for await (const chunk of chunks) {
            refusal = take(chunk);
            if (refusal) throw refusal;
          }
        },
      );
    } catch (error) {
      // The refusal stops the inflation, which the stream then reports as an abort.
      if (!refusal)
        throw new ArchiveRefused(`the entry ${quoted(name)} does not inflate: ${(error as Error).message}`);
    }
  }
  if (refusal) throw refusal;
}

function nestedTooDeep(name: string): ArchiveRefused {
  return new ArchiveRefused(
    `the entry ${quoted(name)} is an archive nested more than ${MAX_NESTING} levels deep`,
  );
}

class TooManyEntries extends ArchiveRefused {}

function tooManyEntries(limits: ArchiveLimits): ArchiveRefused {
  return new TooManyEntries(`more than ${limits.maxEntries} entries (EXPORT_ARCHIVE_MAX_ENTRIES)`);
}

function ratioExceeded(name: string, limits: ArchiveLimits): ArchiveRefused {
  return new ArchiveRefused(
    `the entry ${quoted(name)} inflates to more than ${limits.maxRatio} times its compressed size (EXPORT_ARCHIVE_MAX_RATIO)`,
  );
}

function totalExceeded(name: string, limits: ArchiveLimits): ArchiveRefused {
  return new ArchiveRefused(
    `the entry ${quoted(name)} takes the archive past ${limits.maxBytes} inflated bytes (EXPORT_ARCHIVE_MAX_BYTES)`,
  );
}
