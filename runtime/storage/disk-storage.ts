import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  blobKey,
  checkedKey,
  type FileStorage,
  type ReadOptions,
  type StoredUpload,
  UploadMeter,
  webStream,
} from "./file-storage.ts";

/**
 * Bytes moved per disk read, and buffered before a write waits: large enough that a big file moves
 * in few system calls, small enough that memory stays flat whatever the file size.
 */
const STREAM_CHUNK_BYTES = 1024 * 1024;

/** File storage in a directory; objects are written to a `.partial` name, then renamed into place. */
export class DiskStorage implements FileStorage {
  private readonly directories = new Set<string>();

  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    return join(this.root, checkedKey(key));
  }

  /** Directories are made once per process, not once per file. */
  private async ensureDirectory(directory: string): Promise<void> {
    if (this.directories.has(directory)) return;
    await mkdir(directory, { recursive: true });
    this.directories.add(directory);
  }

  async write(
    key: string,
    source: Readable | AsyncIterable<Buffer>,
    maxBytes: number,
  ): Promise<StoredUpload> {
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    await this.ensureDirectory(dirname(path));
    const meter = new UploadMeter(maxBytes);
    try {
      await pipeline(
        source,
        meter.measure.bind(meter),
        createWriteStream(partial, { highWaterMark: STREAM_CHUNK_BYTES }),
      );
      await rename(partial, path);
      return await meter.result(key);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  /** A second copy of some content simply replaces the first with the same bytes. */
  async promote(uploadKey: string, sha256: string): Promise<string> {
    const key = blobKey(sha256);
    const path = this.pathOf(key);
    await this.ensureDirectory(dirname(path));
    await rename(this.pathOf(uploadKey), path);
    return key;
  }

  readBytes(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

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

  readStream(key: string, options: ReadOptions = {}): ReadableStream<Uint8Array> {
    const path = this.pathOf(key);
    const { range } = options;
    return webStream(
      async () =>
        createReadStream(path, {
          highWaterMark: STREAM_CHUNK_BYTES,
          ...(range ? { start: range.start, end: range.end } : {}),
        }),
      options.onEnd,
    );
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
