import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { readDocx } from "../support/docx-fixtures.ts";
import { freePort, tempDir } from "../support/platform.ts";
import { ROOT, readmeBlocks, runScript, stopGroup } from "../support/readme-walkthrough.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { type RunningSmtpServer, startSmtp } from "../support/smtp-server.ts";
import { CURL, JQ, missingSystemPackages } from "../support/system-requirements.ts";
import { waitFor } from "../support/wait.ts";

/** Where bootstrap.example.json points its e-mail and noticeboard channels. */
const SAMPLE_SMTP_PORT = 1025;
const SAMPLE_NOTICEBOARD_PORT = 9092;

describe("the README's first ten minutes", { skip: missingSystemPackages(CURL, JQ) }, () => {
  let blocks: string[];
  let platform: ChildProcess | undefined;
  let platformLog: () => { stdout: string; stderr: string };
  let dataDir: Awaited<ReturnType<typeof tempDir>>;
  let workDir: Awaited<ReturnType<typeof tempDir>>;
  let smtp: RunningSmtpServer;
  let noticeboard: RecordingServer;
  let base: string;

  before(async () => {
    blocks = await readmeBlocks("First ten minutes");
    dataDir = await tempDir();
    workDir = await tempDir();
    await symlink(join(ROOT, "examples"), join(workDir.path, "examples"));
    smtp = await startSmtp(SAMPLE_SMTP_PORT);
    noticeboard = await RecordingServer.start(
      () => ({ status: 200, body: { errno: 0, error: "", entities: [], total: 0 } }),
      0,
      SAMPLE_NOTICEBOARD_PORT,
    );
    const port = await freePort();
    base = `http://localhost:${port}`;
    // The first block starts the platform exactly as written.
    const started = runScript(blocks[0]!, ROOT, {
      DATA_DIR: dataDir.path,
      PORT: String(port),
      LOG_LEVEL: "warn",
    });
    platform = started.child;
    platformLog = started.output;
    platform.unref();
    await waitFor(
      async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200,
      120_000,
      "the platform to be ready",
    );
  });

  after(async () => {
    if (platform) await stopGroup(platform);
    await smtp?.close();
    await noticeboard?.close();
    await workDir?.remove();
    await dataDir?.remove();
  });

  it("runs every command as written, each doing what the README says", async () => {
    assert.ok(blocks.length >= 8, `the walkthrough has its blocks (found ${blocks.length})`);
    assert.match(blocks[0]!, /npm start/);
    const tour = runScript(blocks.slice(1).join("\n"), workDir.path, { BASE: base });
    const [code] = (await once(tour.child, "exit")) as [number | null];
    const { stdout, stderr } = tour.output();
    assert.equal(
      code,
      0,
      `the walkthrough failed:\n${stderr}\n${stdout}\nplatform:\n${platformLog().stderr}`,
    );

    const id = stdout.match(/^notification ([0-9a-f-]{36})$/m)?.[1];
    assert.ok(id, `a notification id is printed:\n${stdout}`);
    assert.match(stdout, /^\{"channel":"email","sendingStatus":"(pending|sent)"\}$/m);
    assert.match(stdout, /^\{"channel":"noticeboard","sendingStatus":"(pending|sent)"\}$/m);
    assert.match(stdout, /^\{"channel":"noticeboard","readingStatus":"read"\}$/m);

    await waitFor(
      () => smtp.mails.some((mail) => mail.to.includes("alice@example.edu")),
      30_000,
      "the e-mail",
    );
    assert.match(smtp.mails[0]!.raw, /The library opens at 8:00 during the exams\./);
    await waitFor(() => noticeboard.requests.length > 0, 30_000, "the noticeboard's delivery");
    const delivered = JSON.parse(noticeboard.requests[0]!.body) as { users: { account: string }[] };
    assert.deepEqual(
      delivered.users.map((user) => user.account),
      ["alice"],
    );

    const sealed = await readFile(join(workDir.path, "transcript-sealed.pdf"));
    const original = await readFile(join(ROOT, "examples/transcript.pdf"));
    assert.equal(sealed.subarray(0, 5).toString(), "%PDF-");
    assert.ok(sealed.length > original.length + 1000, "the seal image was added");
    assert.match(sealed.toString("latin1"), /\/ByteRange/, "the sealed PDF is signed");

    const downloaded = await readFile(join(workDir.path, "certificate-template.docx"));
    assert.deepEqual(downloaded, await readFile(join(ROOT, "examples/certificate.docx")));

    const filled = readDocx(await readFile(join(workDir.path, "certificate.docx")));
    const text = filled.paragraphs.join("\n");
    assert.match(
      text,
      /This certifies that Alice Example \(student number 20260001\) is enrolled in Physics\./,
    );
    assert.match(text, /Issued on 2026-09-01\./);
  });
});
