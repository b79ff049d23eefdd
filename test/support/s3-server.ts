import S3rver from "s3rver";
import { tempDir } from "./platform.ts";

export const S3_BUCKET = "platform-files";

/** A local S3-compatible server (s3rver, speaking S3's REST protocol) with one empty bucket. */
export async function startS3Server(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  const dir = await tempDir("op-s3-");
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: dir.path,
    configureBuckets: [{ name: S3_BUCKET, configs: [] }],
  });
  const { port } = await server.run();
  return {
    env: {
      FILES_S3_BUCKET: S3_BUCKET,
      FILES_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      FILES_S3_ACCESS_KEY_ID: "S3RVER",
      FILES_S3_SECRET_ACCESS_KEY: "S3RVER",
    },
    async stop() {
      await server.close();
      await dir.remove();
    },
  };
}
