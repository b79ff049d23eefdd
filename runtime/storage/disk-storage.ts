import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  blobKey,
  checkedKey,
  type FileStorage,
  type ReadOptions,
  type StoredUpload,
  UploadMeter,
  type WriteOptions,
  webStream,
} from "./file-storage.ts";

/**
 * Bytes moved per disk read, and buffered before a write waits: large enough that a big file moves
 * in few system calls, small enough that memory stays flat whatever the file size.
 */
const STREAM_CHUNK_BYTES = 1024 * 1024;

/** Written bytes after which a flush to disk starts while more keep arriving. */
const FLUSH_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * A file written and flushed to disk as it goes: a flush starts every few megabytes while the
 * next bytes arrive, so the one that ends the write has little left to do. It ends only once
 * every byte is on disk.
 */
class DurableFileWriter extends Writable {
  private handle: FileHandle | undefined;
  private unflushed = 0;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    /** A scratch file is written, not flushed. */
    private readonly durable: boolean,
  ) {
    super({ highWaterMark: STREAM_CHUNK_BYTES });
  }

  override _construct(callback: (error?: Error | null) => void): void {
    open(this.path, "w").then(
      (handle) => {
        this.handle = handle;
        callback();
      },
      (error) => callback(error),
    );
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    const buffers = chunks.map(({ chunk }) => chunk);
    this.handle!.writev(buffers).then((written) => {
      this.unflushed += written.bytesWritten;
      if (this.durable && this.unflushed >= FLUSH_EVERY_BYTES && !this.flushing) {
        this.unflushed = 0;
        this.flushing = this.handle!.datasync().finally(() => {
          this.flushing = undefined;
        });
        // A failure is seen by the final flush; this one only spreads the work.
        this.flushing.catch(() => {});
      }
      callback();
    }, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    (async () => {
      await this.flushing;
      if (this.durable) await this.handle!.datasync();
    })().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const handle = this.handle;
    this.handle = undefined;
    (handle ? handle.close() : Promise.resolve()).then(
      () => callback(error),
      () => callback(error),
    );
  }
}

/**
 * File storage in a directory. Objects are written to a `.partial` name, flushed to disk, then
 * renamed into place and the rename flushed too: once a write has answered, a crash or power loss
 * cannot take the object back, so a file record never points at bytes that are gone. Scratch
 * objects skip the flushes; one promoted to a blob is flushed then.
 */
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
    options: WriteOptions = {},
  ): Promise<StoredUpload> {
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    await this.ensureDirectory(dirname(path));
    const meter = new UploadMeter(maxBytes);
    const writer = new DurableFileWriter(partial, !options.scratch);
    try {
      await pipeline(source, meter.measure.bind(meter), writer);
      if (options.scratch) await rename(partial, path);
      else await this.renameDurably(partial, path);
      return await meter.result(key);
    } catch (error) {
      // A source that fails at once fails the pipeline while the writer may still be creating its
      // file: removed before the writer has closed, the partial file would be created after.
      if (!writer.closed) await new Promise((resolve) => writer.once("close", resolve));
      await rm(partial, { force: true });
      throw error;
    }
  }

  private async renameDurably(from: string, to: string): Promise<void> {
    await rename(from, to);
    const directory = await open(dirname(to), "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }

  /**
   * A second copy of some content simply replaces the first with the same bytes. The upload is
   * flushed first, in case it was written as scratch; flushing one already on disk costs little.
   */
  async promote(uploadKey: string, sha256: string): Promise<string> {
    const key = blobKey(sha256);
    const path = this.pathOf(key);
    await this.ensureDirectory(dirname(path));
    const upload = await open(this.pathOf(uploadKey), "r+");
    try {
      await upload.datasync();
    } finally {
      await upload.close();
    }
    await this.renameDurably(this.pathOf(uploadKey), path);
    return key;
  }

  readBytes(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

  async writeBytes(key: string, bytes: Uint8Array, options: WriteOptions = {}): Promise<void> {
    const path = this.pathOf(key);
    const partial = `${path}.partial`;
    await this.ensureDirectory(dirname(path));
    try {
      await writeFile(partial, bytes, { flush: !options.scratch });
      if (options.scratch) await rename(partial, path);
      else await this.renameDurably(partial, path);
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
