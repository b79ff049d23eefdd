import { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { S3Options } from "../config.ts";
import {
  blobKey,
  checkedKey,
  type FileStorage,
  type ReadOptions,
  type StoredUpload,
  UploadMeter,
  webStream,
} from "./file-storage.ts";

/** Parts of a streamed upload: S3's smallest, so at most four are in memory at once. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * File storage in an S3-compatible bucket (AWS S3, MinIO, Ceph…). Uploads stream as multipart
 * uploads, so nothing appears under a key before it is complete.
 */
export class S3Storage implements FileStorage {
  private readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: compatible servers differ in the optional ones.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async write(
    key: string,
    source: Readable | AsyncIterable<Buffer>,
    maxBytes: number,
  ): Promise<StoredUpload> {
    const meter = new UploadMeter(maxBytes);
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.options.bucket,
        Key: checkedKey(key),
        Body: Readable.from(meter.measure(source)),
      },
      partSize: PART_BYTES,
      queueSize: 4,
    });
    try {
      await upload.done();
      return await meter.result(key);
    } catch (error) {
      await upload.abort().catch(() => {});
      throw error;
    }
  }

  async promote(uploadKey: string, sha256: string): Promise<string> {
    const key = blobKey(sha256);
    const exists = await this.client
      .send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }))
      .then(() => true)
      .catch(() => false);
    if (!exists) {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.options.bucket,
          Key: key,
          CopySource: `${this.options.bucket}/${checkedKey(uploadKey)}`,
        }),
      );
    }
    await this.remove(uploadKey);
    return key;
  }

  async readBytes(key: string): Promise<Buffer> {
    const object = await this.client.send(
      new GetObjectCommand({ Bucket: this.options.bucket, Key: checkedKey(key) }),
    );
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  async writeBytes(key: string, bytes: Uint8Array): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.options.bucket, Key: checkedKey(key), Body: bytes }),
    );
  }

  readStream(key: string, options: ReadOptions = {}): ReadableStream<Uint8Array> {
    const { range } = options;
    return webStream(async () => {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: checkedKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return object.Body as Readable;
    }, options.onEnd);
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: checkedKey(key) }));
  }
}
