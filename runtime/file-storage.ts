import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { hashContent } from "./content-hasher.ts";

/** A stored object's key: lower-case words and slashes, never climbing out of the storage root. */
const KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

export class StoredFileTooLarge extends Error {
  override name = "StoredFileTooLarge";
  constructor(readonly maxBytes: number) {
    super(`file is larger than ${maxBytes} bytes`);
  }
}

/**
 * Bytes moved per disk read, and buffered before a write waits: large enough that a big file moves
 * in few system calls, small enough that memory stays flat whatever the file size.
 */
const STREAM_CHUNK_BYTES = 1024 * 1024;

/** How many leading bytes of an upload are kept for sniffing its type. */
const HEAD_BYTES = 4100;

export interface StoredUpload {
  key: string;
  size: number;
  sha1: string;
  sha256: string;
  head: Buffer;
}

/** Where the content with this SHA-256 lives. */
export function blobKey(sha256: string): string {
  return `blobs/${sha256.slice(0, 2)}/${sha256}`;
}

/**
 * Files shared by the gateway and the workers (uploads to seal, sealed results, exports): a
 * directory, which in a distributed deployment is a volume every process mounts (`FILES_DIR`).
 * A file appears under its key only once completely written.
 */
export class FileStorage {
  constructor(readonly root: string) {}

  pathOf(key: string): string {
    if (!KEY.test(key) || key.includes("..")) throw new Error(`invalid storage key ${key}`);
    return join(this.root, key);
  }

  /**
   * Streams `source` into the file, failing (and keeping nothing) past `maxBytes`; resolves to its
   * size, SHA-1 (spec 001's `sha1Hash`) and SHA-256 (the blob address), taken on the way through,
   * and its first bytes (for sniffing its type).
   */
  async write(
    key: string,
    source: Readable | AsyncIterable<Buffer>,
    maxBytes: number,
  ): Promise<StoredUpload> {
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    await this.ensureDirectory(dirname(path));
    let size = 0;
    const hashing = hashContent();
    const head: Buffer[] = [];
    let headBytes = 0;
    try {
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > maxBytes) throw new StoredFileTooLarge(maxBytes);
            await hashing.update(chunk);
            if (headBytes < HEAD_BYTES) {
              head.push(chunk.subarray(0, HEAD_BYTES - headBytes));
              headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes);
            }
            yield chunk;
          }
        },
        createWriteStream(partial, { highWaterMark: STREAM_CHUNK_BYTES }),
      );
      await rename(partial, path);
      return { key, size, ...(await hashing.digest()), head: Buffer.concat(head) };
    } catch (error) {
      hashing.abandon();
      await rm(partial, { force: true });
      throw error;
    }
  }

  /**
   * Makes an upload the blob of its content. Identical content has one blob: a second copy simply
   * replaces the first with the same bytes.
   */
  async promote(uploadKey: string, sha256: string): Promise<string> {
    const key = blobKey(sha256);
    const path = this.pathOf(key);
    await this.ensureDirectory(dirname(path));
    await rename(this.pathOf(uploadKey), path);
    return key;
  }

  async readBytes(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

  /** Writes bytes already in memory (a worker's result), under the same appear-when-complete rule. */
  async writeBytes(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    await this.ensureDirectory(dirname(path));
    try {
      await writeFile(partial, bytes);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  private readonly directories = new Set<string>();

  /** Directories are made once per process, not once per file. */
  private async ensureDirectory(directory: string): Promise<void> {
    if (this.directories.has(directory)) return;
    await mkdir(directory, { recursive: true });
    this.directories.add(directory);
  }

  /**
   * The file as a web stream for an HTTP answer, read a chunk at a time as the client takes it
   * (Readable.toWeb would read ahead without bound). `onEnd` runs once it is fully sent or cancelled.
   */
  readStream(
    key: string,
    options: { range?: { start: number; end: number }; onEnd?: () => void } = {},
  ): ReadableStream<Uint8Array> {
    const { range, onEnd } = options;
    const file = createReadStream(this.pathOf(key), {
      highWaterMark: STREAM_CHUNK_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
    const chunks = file[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      onEnd?.();
    };
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const { value, done } = await chunks.next();
            if (done) {
              controller.close();
              end();
            } else controller.enqueue(value);
          } catch (error) {
            controller.error(error);
            end();
          }
        },
        cancel() {
          file.destroy();
          end();
        },
      },
      { highWaterMark: 0 },
    );
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
