import type { Config } from "../config.ts";
import { DiskStorage } from "./disk-storage.ts";
import type { FileStorage } from "./file-storage.ts";

/** The configured storage: an S3-compatible bucket when `FILES_S3_BUCKET` is set, else `FILES_DIR`. */
export async function openFileStorage(config: Config): Promise<FileStorage> {
  if (!config.files.s3) return new DiskStorage(config.filesDir);
  // Loaded only when configured: the S3 client is large and disk users never need it.
  const { S3Storage } = await import("./s3-storage.ts");
  return new S3Storage(config.files.s3);
}
