import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createInflateRaw } from "node:zlib";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
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
  let entries: ZipEntry[];
  try {
    entries = zipEntries(zip, limits.maxEntries - budget.entries, () => tooManyEntries(limits));
  } catch (error) {
    if (!(error instanceof ArchiveRefused) || error instanceof TooManyEntries || path === "") throw error;
    throw new ArchiveRefused(`the archive ${quoted(path.slice(0, -2))} inside it: ${error.message}`);
  }
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
  let head: Buffer = Buffer.alloc(0);
  let tail: Buffer = Buffer.alloc(0);
  let archive: Buffer[] | undefined;
  /** Counts a chunk of output: the refusal it brings, if any. */
  const take = (chunk: Buffer): ArchiveRefused | undefined => {
    inflated += chunk.length;
    if (inflated > entry.uncompressedSize)
      return new ArchiveRefused(
        `the entry ${quoted(name)} inflates past the ${entry.uncompressedSize} bytes its header declares`,
      );
    if (inflated > cap) return ratioExceeded(name, limits);
    if (budget.bytes + inflated > limits.maxBytes) return totalExceeded(name, limits);
    if (head.length < ZIP_MAGIC.length) {
      head = Buffer.concat([head, chunk.subarray(0, ZIP_MAGIC.length)]);
      if (head.subarray(0, ZIP_MAGIC.length).equals(ZIP_MAGIC)) {
        if (depth >= MAX_NESTING) return nestedTooDeep(name);
        archive = [];
      }
    }
    if (archive) archive.push(chunk);
    else {
      tail = chunk.length >= END_RECORD_WINDOW ? chunk : Buffer.concat([tail, chunk]);
      tail = tail.subarray(Math.max(0, tail.length - END_RECORD_WINDOW));
    }
    return undefined;
  };
  await inflate(data, entry.method, name, take);
  if (inflated !== entry.uncompressedSize)
    throw new ArchiveRefused(
      `the entry ${quoted(name)} inflates to ${inflated} bytes, not the ${entry.uncompressedSize} its header declares`,
    );
  budget.bytes += inflated;
  // A zip is read from its end record, wherever it starts: such an entry is inflated again, kept this time.
  if (!archive && endsWithEndRecord(tail)) {
    if (depth >= MAX_NESTING) throw nestedTooDeep(name);
    const kept: Buffer[] = [];
    await inflate(data, entry.method, name, (chunk) => {
      kept.push(chunk);
      return undefined;
    });
    archive = kept;
  }
  if (archive) await checkEntries(Buffer.concat(archive), limits, budget, `${name}!/`, depth + 1);
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
