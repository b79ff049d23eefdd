import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { loadConfig } from "../../runtime/config.ts";
import { DiskStorage } from "../../runtime/storage/disk-storage.ts";
import { blobKey, type FileStorage, StoredFileTooLarge } from "../../runtime/storage/file-storage.ts";
import { S3Storage } from "../../runtime/storage/s3-storage.ts";
import { tempDir } from "../support/platform.ts";
import { startS3Server } from "../support/s3-server.ts";

const chunks = (count: number, size: number) =>
  Array.from({ length: count }, (_, i) => Buffer.alloc(size, i % 251));

/** Each kind of storage, fresh for each test, with a way to list what it holds under a prefix. */
const kinds: {
  name: string;
  open(): Promise<{ storage: FileStorage; keys(): Promise<string[]>; close(): Promise<void> }>;
}[] = [
  {
    name: "disk",
    async open() {
      const dir = await tempDir();
      const storage = new DiskStorage(dir.path);
      const { readdir } = await import("node:fs/promises");
      return {
        storage,
        keys: async () =>
          (await readdir(dir.path, { recursive: true, withFileTypes: true }))
            .filter((entry) => entry.isFile())
            .map((entry) => `${entry.parentPath.slice(dir.path.length + 1)}/${entry.name}`)
            .sort(),
        close: dir.remove,
      };
    },
  },
  {
    name: "S3-compatible",
    async open() {
      const server = await startS3Server();
      const config = loadConfig(server.env).files.s3!;
      const storage = new S3Storage(config);
      const { S3Client, ListObjectsV2Command } = await import("@aws-sdk/client-s3");
      const client = new S3Client({
        endpoint: config.endpoint!,
        region: config.region,
        forcePathStyle: true,
        credentials: { accessKeyId: config.accessKeyId!, secretAccessKey: config.secretAccessKey! },
      });
      return {
        storage,
        keys: async () =>
          ((await client.send(new ListObjectsV2Command({ Bucket: config.bucket }))).Contents ?? [])
            .map((object) => object.Key!)
            .sort(),
        close: server.stop,
      };
    },
  },
];

for (const kind of kinds) {
  describe(`file storage (${kind.name})`, () => {
    it("streams a file in, hashing it on the way, and keeps its first bytes for sniffing", async () => {
      const { storage, close } = await kind.open();
      // 20 MB in 1 MB chunks: several S3 parts.
      const parts = chunks(20, 1024 * 1024);
      const whole = Buffer.concat(parts);
      const stored = await storage.write("uploads/a", Readable.from(parts), whole.length);
      assert.equal(stored.size, whole.length);
      assert.equal(stored.sha1, createHash("sha1").update(whole).digest("hex"));
      assert.equal(stored.sha256, createHash("sha256").update(whole).digest("hex"));
      assert.deepEqual(stored.head, whole.subarray(0, 4100));
      assert.deepEqual(await storage.readBytes("uploads/a"), whole);
      await close();
    });

    it("refuses a file past its limit and keeps nothing of it", async () => {
      const { storage, keys, close } = await kind.open();
      await assert.rejects(
        storage.write("uploads/big", Readable.from(chunks(3, 1000)), 2500),
        StoredFileTooLarge,
      );
      assert.deepEqual(await keys(), []);
      await close();
    });

    it("gives identical content one blob", async () => {
      const { storage, keys, close } = await kind.open();
      const first = await storage.write("uploads/1", Readable.from([Buffer.from("same")]), 100);
      const second = await storage.write("uploads/2", Readable.from([Buffer.from("same")]), 100);
      assert.equal(await storage.promote(first.key, first.sha256), blobKey(first.sha256));
      assert.equal(await storage.promote(second.key, second.sha256), blobKey(first.sha256));
      assert.deepEqual(await keys(), [blobKey(first.sha256)]);
      await close();
    });

    it("keeps scratch objects whole, and makes a scratch upload a blob like any other", async () => {
      const { storage, keys, close } = await kind.open();
      const upload = await storage.write("uploads/s", Readable.from(chunks(3, 1000)), 5000, {
        scratch: true,
      });
      assert.equal(upload.size, 3000);
      await storage.writeBytes("sealed/s.pdf", Buffer.from("%PDF-1.7 sealed"), { scratch: true });
      assert.equal((await storage.readBytes("sealed/s.pdf")).toString(), "%PDF-1.7 sealed");
      const blob = await storage.promote(upload.key, upload.sha256);
      assert.deepEqual(await storage.readBytes(blob), Buffer.concat([...chunks(3, 1000)]));
      await storage.remove("sealed/s.pdf");
      assert.deepEqual(await keys(), [blob]);
      await close();
    });

    it("reads a byte range, and removes", async () => {
      const { storage, keys, close } = await kind.open();
      await storage.writeBytes("results/r", Buffer.from("0123456789"));
      const text = await new Response(
        storage.readStream("results/r", { range: { start: 2, end: 5 } }),
      ).text();
      assert.equal(text, "2345");
      await storage.remove("results/r");
      assert.deepEqual(await keys(), []);
      await close();
    });
  });
}
