import { createReadStream, createWriteStream } from "node:fs";
import { rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Agent, request } from "undici";
import { freshDatabase, tempDir } from "../../test/support/platform.ts";
import { issueToken } from "../../test/support/tokens.ts";
import { type BenchCase, type BenchResult, higherIsBetter } from "../bench-result.ts";
import { startServer } from "../load.ts";
import { DATABASE_URL, PLATFORM_SERVER, platformEnv } from "../platform-env.ts";
import { median } from "../statistics.ts";

const PORT = 18_981;
const SECRET = "bench-files-secret-0123456789abcdefghijklm";
const SIZE = 100 * 1024 * 1024;
const ROUNDS = 3;
const BOUNDARY = "bench-files-boundary-41d2";

/** Seconds `work` takes. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** A multipart body streamed from a file on disk: the upload a browser or `curl -F` sends. */
async function* multipartFrom(path: string): AsyncGenerator<Buffer> {
  yield Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  yield* createReadStream(path, { highWaterMark: 1024 * 1024 });
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

export const fileBench: BenchCase = {
  name: "files",
  description:
    "100 MB upload and download through a gateway process, against a raw disk copy (flushed, like an upload) of the same file",
  async run(): Promise<BenchResult[]> {
    const dir = await tempDir("op-bench-files-");
    const db = await freshDatabase(DATABASE_URL);
    const source = join(dir.path, "source.bin");
    const random = Buffer.alloc(SIZE);
    for (let i = 0; i < SIZE; i += 4) random.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
    await writeFile(source, random);
    const bootstrap = join(dir.path, "bootstrap.json");
    await writeFile(
      bootstrap,
      JSON.stringify({
        applications: [{ id: "bench-files", secret: SECRET, name: "Bench", scopes: ["notifications"] }],
      }),
    );
    const env = platformEnv(dir.path, db.url, bootstrap);
    const gateway = await startServer(PLATFORM_SERVER, PORT, { ...env, BENCH_PROCESS: "gateway" });
    const client = new Agent({ connections: 1 });
    try {
      const url = `http://127.0.0.1:${PORT}`;
      const token = await issueToken(
        url,
        { id: "bench-files", secret: SECRET },
        {
          grant_type: "client_credentials",
          scope: "notifications",
        },
      );
      const copy = join(dir.path, "copy.bin");
      // A durable copy, as an upload is: the platform flushes a file to disk before it answers.
      const rawCopy = () => pipeline(createReadStream(source), createWriteStream(copy, { flush: true }));
      let fileId = "";
      const uploadOnce = async () => {
        const response = await request(`${url}/file?access_token=${token}`, {
          method: "PUT",
          dispatcher: client,
          headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
          body: Readable.from(multipartFrom(source)),
        });
        const answer = (await response.body.json()) as { entities: { id: string; size: number }[] };
        if (response.statusCode !== 200 || answer.entities[0]!.size !== SIZE)
          throw new Error(`upload answered ${response.statusCode}`);
        fileId = answer.entities[0]!.id;
      };
      const downloadOnce = async () => {
        const response = await request(`${url}/file/${fileId}`, { dispatcher: client });
        if (response.statusCode !== 200) throw new Error(`download answered ${response.statusCode}`);
        // Written to disk and flushed, as the raw copy is.
        await pipeline(response.body, createWriteStream(copy, { flush: true }));
        if ((await stat(copy)).size !== SIZE) throw new Error("download incomplete");
      };
      const copies: number[] = [];
      const uploads: number[] = [];
      const downloads: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        copies.push(await timed(rawCopy));
        uploads.push(await timed(uploadOnce));
        downloads.push(await timed(downloadOnce));
        await rm(copy, { force: true });
      }
      const mb = SIZE / 2 ** 20;
      const raw = mb / median(copies);
      return [
        higherIsBetter("files.upload-100mb", "MB/s", mb / median(uploads), raw, 0.5),
        higherIsBetter("files.download-100mb", "MB/s", mb / median(downloads), raw, 0.5),
      ];
    } finally {
      await client.close();
      await gateway.stop();
      await db.drop();
      await dir.remove();
    }
  },
};
