import assert from "node:assert/strict";
import { access, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { OfficeConverter } from "../../workers/export/office-converter.ts";
import { buildDocx } from "../support/docx-fixtures.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { LIBREOFFICE, missingSystemPackages, PYTHON_UNO } from "../support/system-requirements.ts";

const NEEDS_OFFICE = { skip: missingSystemPackages(LIBREOFFICE, PYTHON_UNO) };

/** The Unix sockets LibreOffice listens on under /tmp, found through the processes of its group. */
async function officePipes(processGroup: number): Promise<string[]> {
  const inodes = new Set<string>();
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // The process group is the fifth field, the third after the command name.
    if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== processGroup) continue;
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
  }
  const sockets = (await readFile("/proc/net/unix", "utf8")).split("\n").slice(1);
  const paths = sockets
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => inodes.has(fields[6]!) && fields[7]?.startsWith("/tmp/OSL_PIPE_"))
    .map((fields) => fields[7]!);
  return [...new Set(paths)];
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("LibreOffice converter", NEEDS_OFFICE, () => {
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

describe("LibreOffice converter, closed", NEEDS_OFFICE, () => {
  it("leaves none of LibreOffice's pipes in /tmp", async () => {
    const dir = await mkdtemp(join(tmpdir(), "office-converter-"));
    const converter = new OfficeConverter({
      python: "/usr/bin/python3",
      soffice: "soffice",
      profileDir: join(dir, "profile"),
      timeoutMs: 30_000,
      log: pino({ level: "silent" }),
    });
    try {
      await converter.warmUp();
      const pipes = await officePipes(converter.pid!);
      assert.ok(
        pipes.some((pipe) => pipe.includes("open-platform-")),
        `LibreOffice listens on its pipe: ${pipes.join(", ")}`,
      );
      await converter.close();
      const left = [];
      for (const pipe of pipes) if (await exists(pipe)) left.push(pipe);
      assert.deepEqual(left, []);
    } finally {
      await converter.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("LibreOffice converter on a machine without its Python bridge", () => {
  it("refuses a conversion saying LibreOffice could not be started, and closes at once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "office-converter-"));
    const converter = new OfficeConverter({
      python: join(dir, "no-python-here"),
      soffice: "soffice",
      profileDir: join(dir, "profile"),
      timeoutMs: 30_000,
      log: pino({ level: "silent" }),
    });
    try {
      await assert.rejects(
        converter.convert(join(dir, "in.docx"), join(dir, "out.pdf")),
        /LibreOffice could not be started: spawn .*no-python-here ENOENT/,
      );
    } finally {
      await converter.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
