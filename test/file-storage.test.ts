import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { blobKey, FileStorage, StoredFileTooLarge } from "../runtime/file-storage.ts";
import { tempDir } from "./support/platform.ts";

const chunks = (count: number, size: number) =>
  Array.from({ length: count }, (_, i) => Buffer.alloc(size, i % 251));

describe("file storage", () => {
  it("streams a file in, hashing it on the way, and keeps its first bytes for sniffing", async () => {
    const dir = await tempDir();
    const storage = new FileStorage(dir.path);
    // 20 MB in 1 MB chunks: more than the hashing thread may lag behind.
    const parts = chunks(20, 1024 * 1024);
    const whole = Buffer.concat(parts);
    const stored = await storage.write("uploads/a", Readable.from(parts), whole.length);
    assert.equal(stored.size, whole.length);
    assert.equal(stored.sha1, createHash("sha1").update(whole).digest("hex"));
    assert.equal(stored.sha256, createHash("sha256").update(whole).digest("hex"));
    assert.deepEqual(stored.head, whole.subarray(0, 4100));
    assert.deepEqual(await storage.readBytes("uploads/a"), whole);
    await dir.remove();
  });

  it("refuses a file past its limit and keeps nothing of it", async () => {
    const dir = await tempDir();
    const storage = new FileStorage(dir.path);
    await assert.rejects(
      storage.write("uploads/big", Readable.from(chunks(3, 1000)), 2500),
      StoredFileTooLarge,
    );
    assert.deepEqual(await readdir(`${dir.path}/uploads`), []);
    await dir.remove();
  });

  it("gives identical content one blob", async () => {
    const dir = await tempDir();
    const storage = new FileStorage(dir.path);
    const first = await storage.write("uploads/1", Readable.from([Buffer.from("same")]), 100);
    const second = await storage.write("uploads/2", Readable.from([Buffer.from("same")]), 100);
    assert.equal(await storage.promote(first.key, first.sha256), blobKey(first.sha256));
    assert.equal(await storage.promote(second.key, second.sha256), blobKey(first.sha256));
    assert.deepEqual(await readdir(`${dir.path}/blobs/${first.sha256.slice(0, 2)}`), [first.sha256]);
    assert.deepEqual(await readdir(`${dir.path}/uploads`), []);
    await dir.remove();
  });

  it("reads a byte range", async () => {
    const dir = await tempDir();
    const storage = new FileStorage(dir.path);
    await storage.writeBytes("results/r", Buffer.from("0123456789"));
    const text = await new Response(storage.readStream("results/r", { range: { start: 2, end: 5 } })).text();
    assert.equal(text, "2345");
    await dir.remove();
  });
});
