import { createHash } from "node:crypto";
import type { Readable } from "node:stream";

/** A stored object's key: lower-case words and slashes, never climbing out of the storage root. */
const KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

export function checkedKey(key: string): string {
  if (!KEY.test(key) || key.includes("..")) throw new Error(`invalid storage key ${key}`);
  return key;
}

export class StoredFileTooLarge extends Error {
  override name = "StoredFileTooLarge";
  constructor(readonly maxBytes: number) {
    super(`file is larger than ${maxBytes} bytes`);
  }
}

export interface StoredUpload {
  key: string;
  size: number;
  sha1: string;
  sha256: string;
  /** The first bytes, for sniffing the type. */
  head: Buffer;
}

/** Where the content with this SHA-256 lives. */
export function blobKey(sha256: string): string {
  return `blobs/${sha256.slice(0, 2)}/${sha256}`;
}

export interface ReadOptions {
  /** Inclusive byte offsets. */
  range?: { start: number; end: number };
  /** Runs once the stream is fully read, cancelled or failed. */
  onEnd?: () => void;
}

/**
 * Files shared by the gateway and the workers (uploads, blobs, sealed results, thumbnails): a
 * directory (`FILES_DIR`, a volume every process mounts when distributed) or an S3-compatible
 * bucket. An object appears under its key only once completely written.
 */
export interface FileStorage {
  /**
   * Streams `source` in, failing (and keeping nothing) past `maxBytes`; resolves to its size,
   * SHA-1 (spec 001's `sha1Hash`) and SHA-256 (the blob address), taken on the way through.
   */
  write(
    key: string,
    source: Readable | AsyncIterable<Buffer>,
    maxBytes: number,
    options?: WriteOptions,
  ): Promise<StoredUpload>;
  /** Makes an upload the blob of its content, durably; identical content has one blob. */
  promote(uploadKey: string, sha256: string): Promise<string>;
  readBytes(key: string): Promise<Buffer>;
  /** Writes bytes already in memory (a worker's result). */
  writeBytes(key: string, bytes: Uint8Array, options?: WriteOptions): Promise<void>;
  /** The object as a web stream for an HTTP answer, read a chunk at a time as the client takes it. */
  readStream(key: string, options?: ReadOptions): ReadableStream<Uint8Array>;
  remove(key: string): Promise<void>;
}

export interface WriteOptions {
  /**
   * An object read back within the request that wrote it, then removed (a document on its way
   * to and from the sign worker): nothing outlives the request, so it is not flushed to disk
   * before the write answers. A crash loses the request, which its caller sees fail. Default false.
   */
  scratch?: boolean;
}

/** How many leading bytes of an upload are kept for sniffing its type. */
const HEAD_BYTES = 4100;

/** What `write` learns of a stream as it passes: size, hashes and first bytes, with the limit enforced. */
export class UploadMeter {
  size = 0;
  private readonly sha1 = createHash("sha1");
  private readonly sha256 = createHash("sha256");
  private readonly head: Buffer[] = [];
  private headBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The stream, passed through unchanged, measured and bounded. */
  async *measure(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      this.size += chunk.length;
      if (this.size > this.maxBytes) throw new StoredFileTooLarge(this.maxBytes);
      this.sha1.update(chunk);
      this.sha256.update(chunk);
      if (this.headBytes < HEAD_BYTES) {
        this.head.push(chunk.subarray(0, HEAD_BYTES - this.headBytes));
        this.headBytes += Math.min(chunk.length, HEAD_BYTES - this.headBytes);
      }
      yield chunk;
    }
  }

  async result(key: string): Promise<StoredUpload> {
    return {
      key,
      size: this.size,
      sha1: this.sha1.digest("hex"),
      sha256: this.sha256.digest("hex"),
      head: Buffer.concat(this.head),
    };
  }
}

/** A pull-based web stream over a Node stream that is opened on first read. */
export function webStream(
  open: () => Promise<AsyncIterable<Buffer> & { destroy(): void }>,
  onEnd?: () => void,
) {
  let source: (AsyncIterable<Buffer> & { destroy(): void }) | undefined;
  let chunks: AsyncIterator<Buffer> | undefined;
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
          if (!chunks) {
            source = await open();
            chunks = source[Symbol.asyncIterator]();
          }
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
        source?.destroy();
        end();
      },
    },
    { highWaterMark: 0 },
  );
}
