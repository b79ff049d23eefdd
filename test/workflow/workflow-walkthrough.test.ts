import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { freePort, tempDir, testModes } from "../support/platform.ts";
import { ROOT, readmeBlocks, runScript, stopGroup } from "../support/readme-walkthrough.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { CURL, JQ, missingSystemPackages } from "../support/system-requirements.ts";
import { waitFor } from "../support/wait.ts";

for (const mode of await testModes()) {
  describe(`the README's workflow walkthrough (${mode.name})`, {
    skip: mode.skip || missingSystemPackages(CURL, JQ),
  }, () => {
    let platform: ChildProcess | undefined;
    let platformLog: () => { stdout: string; stderr: string };
    let cleanup: (() => Promise<void>) | undefined;
    let workDir: Awaited<ReturnType<typeof tempDir>> | undefined;
    let base: string;

    before(async () => {
      const [start] = await readmeBlocks("First ten minutes");
      assert.match(start!, /ADMIN_TOKEN=\S+ BOOTSTRAP_FILE=bootstrap\.example\.json npm start/);
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      workDir = await tempDir();
      await symlink(join(ROOT, "examples"), join(workDir.path, "examples"));
      const port = await freePort();
      base = `http://localhost:${port}`;
      // The platform starts as the tour starts it, on this mode's database and broker.
      const started = runScript(start!, ROOT, { ...prepared.env, PORT: String(port), LOG_LEVEL: "warn" });
      platform = started.child;
      platformLog = started.output;
      await waitFor(
        async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200,
        120_000,
        "the platform to be ready",
      );
    });

    after(async () => {
      if (platform) await stopGroup(platform);
      await workDir?.remove();
      await cleanup?.();
    });

    it("deploys the leave request, signs three people in through the login page, and grants Alice's leave", async () => {
      const blocks = await readmeBlocks("A workflow, end to end");
      assert.ok(blocks.length >= 5, `the walkthrough has its blocks (found ${blocks.length})`);
      const walk = runScript(blocks.join("\n"), workDir!.path, { BASE: base });
      const [code] = (await once(walk.child, "exit")) as [number | null];
      const { stdout, stderr } = walk.output();
      assert.equal(
        code,
        0,
        `the walkthrough failed:\n${stderr}\n${stdout}\nplatform:\n${platformLog().stderr}`,
      );
      assert.deepEqual(stdout.trim().split("\n"), [
        '{"number":1,"created":true}',
        '{"number":1,"created":false}',
        '{"step":"apply","actionName":"Submit"}',
        '{"step":"department","actionName":"Approve"}',
        '{"step":"record","actionName":"Submit"}',
        '{"entry":1,"status":"done","milestone":"Granted"}',
      ]);
    });
  });
}
