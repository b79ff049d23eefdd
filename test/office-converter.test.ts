import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { OfficeConverter } from "../workers/export/office-converter.ts";
import { buildDocx } from "./support/docx-fixtures.ts";

describe("LibreOffice converter", () => {
  let dir: string;
  let converter: OfficeConverter;
  let input: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "office-converter-"));
    input = join(dir, "in.docx");
    await writeFile(input, buildDocx([{ paragraph: ["Converted"] }]));
    converter = new OfficeConverter({
      python: "/usr/bin/python3",
      soffice: "soffice",
      profileDir: join(dir, "profile"),
      timeoutMs: 30_000,
      log: pino({ level: "silent" }),
    });
  });

  after(async () => {
    await converter.close();
    await rm(dir, { recursive: true, force: true });
  });

  const isPdf = async (path: string) => (await readFile(path)).subarray(0, 5).toString() === "%PDF-";

  it("keeps one LibreOffice for every conversion and takes concurrent ones in turn", async () => {
    await converter.warmUp();
    const pid = converter.pid;
    const outputs = [0, 1, 2, 3].map((i) => join(dir, `out-${i}.pdf`));
    await Promise.all(outputs.map((output) => converter.convert(input, output)));
    for (const output of outputs) assert.ok(await isPdf(output), output);
    assert.equal(converter.pid, pid, "not started again");
  });

  it("starts LibreOffice again when it dies, and the next conversion works", async () => {
    const pid = converter.pid!;
    process.kill(-pid, "SIGKILL");
    for (let i = 0; i < 100 && converter.pid === pid; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.notEqual(converter.pid, pid, "a new LibreOffice is on its way");
    const output = join(dir, "after-restart.pdf");
    await converter.convert(input, output);
    assert.ok(await isPdf(output));
  });

  it("answers a document LibreOffice cannot read with an error, and keeps working", async () => {
    const broken = join(dir, "broken.docx");
    await writeFile(broken, Buffer.from("PK\u0003\u0004 not really a zip"));
    await assert.rejects(converter.convert(broken, join(dir, "broken.pdf")), /LibreOffice could not/);
    const output = join(dir, "still.pdf");
    await converter.convert(input, output);
    assert.ok(await isPdf(output));
  });
});
