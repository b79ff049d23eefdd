import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Agent, request } from "undici";
import { startTestPlatform, type TestPlatform, tempDir } from "../support/platform.ts";
import { issueToken } from "../support/tokens.ts";

const SECRET = "memory-app-secret-0123456789abcdefghijklm";
const SIZE = 200 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const BOUNDARY = "memory-test-boundary";

/** The upload as a client streams it: 200 MB made a chunk at a time, never held whole. */
async function* multipartBody(): AsyncGenerator<Buffer> {
  yield Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
  );
  for (let sent = 0; sent < SIZE; sent += CHUNK) yield Buffer.alloc(CHUNK, (sent / CHUNK) % 256);
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

function expectedSha1(): string {
  const hash = createHash("sha1");
  for (let sent = 0; sent < SIZE; sent += CHUNK) hash.update(Buffer.alloc(CHUNK, (sent / CHUNK) % 256));
  return hash.digest("hex");
}

describe("memory under a large upload", () => {
  let platform: TestPlatform;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    dir = await tempDir("op-memory-");
    await writeFile(
      join(dir.path, "bootstrap.json"),
      JSON.stringify({
        applications: [{ id: "memory-app", secret: SECRET, name: "Memory", scopes: ["notifications"] }],
      }),
    );
    platform = await startTestPlatform({
      DATA_DIR: dir.path,
      BOOTSTRAP_FILE: join(dir.path, "bootstrap.json"),
    });
  });

  after(async () => {
    await platform?.stop();
    await dir?.remove();
  });

  it("takes and gives back a 200 MB file with the process growing by far less than the file", async () => {
    const token = await issueToken(
      platform.url,
      { id: "memory-app", secret: SECRET },
      {
        grant_type: "client_credentials",
        scope: "notifications",
      },
    );
    const client = new Agent({ connections: 1 });
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    try {
      const uploaded = await request(`${platform.url}/file?access_token=${token}`, {
        method: "PUT",
        dispatcher: client,
        headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: Readable.from(multipartBody()),
      });
      const answer = (await uploaded.body.json()) as {
        entities: { id: string; size: number; sha1Hash: string }[];
      };
      assert.equal(uploaded.statusCode, 200, JSON.stringify(answer));
      const [file] = answer.entities;
      assert.equal(file!.size, SIZE);
      assert.equal(file!.sha1Hash, expectedSha1());

      const downloaded = await request(`${platform.url}/file/${file!.id}`, { dispatcher: client });
      const hash = createHash("sha1");
      let received = 0;
      for await (const chunk of downloaded.body) {
        hash.update(chunk as Buffer);
        received += (chunk as Buffer).length;
      }
      assert.equal(received, SIZE);
      assert.equal(hash.digest("hex"), file!.sha1Hash);
    } finally {
      clearInterval(sampler);
      await client.close();
    }
    const growthMb = (peak - baseline) / 2 ** 20;
    // Client and platform share this process: both stream, so the 200 MB never sits in memory.
    assert.ok(growthMb < 150, `the process grew by ${growthMb.toFixed(0)} MB`);
  });
});
