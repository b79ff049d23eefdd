import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { adminCli } from "../support/admin-cli.ts";
import { startTestPlatform, type TestPlatform, tempDir, withBootstrap } from "../support/platform.ts";

const portal = {
  id: "course-portal",
  secret: "a-secret-of-at-least-32-characters-0123",
  name: "Course portal",
};

/** The id of a process that has ended. */
function endedProcessId(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", ""]);
    child.on("close", () => resolve(child.pid!));
  });
}

describe("embedded data directory", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let platform: TestPlatform | undefined;

  before(async () => {
    dir = await tempDir();
  });
  after(async () => {
    await platform?.stop();
    await dir.remove();
  });

  it("refuses the admin CLI while a platform runs on it, naming the running process", async () => {
    platform = await startTestPlatform(
      await withBootstrap({ DATA_DIR: dir.path }, { applications: [portal] }),
    );
    const refused = await adminCli(dir.path, "new-secret", portal.id);
    assert.equal(refused.code, 78);
    assert.match(refused.err, new RegExp(`in use by process ${process.pid} `));
    assert.equal(refused.out, "");

    await platform.stop();
    platform = undefined;
    const done = await adminCli(dir.path, "new-secret", portal.id);
    assert.equal(done.code, 0, done.err);
    assert.match(done.out, /^\S{32,}\n$/);
  });

  it("takes over a lock left by a process that died", async () => {
    const lock = join(dir.path, "platform.lock");
    const dead = await endedProcessId();
    await writeFile(
      lock,
      JSON.stringify({ pid: dead, command: "bin/platform.ts", since: new Date().toISOString() }),
    );
    platform = await startTestPlatform({ DATA_DIR: dir.path });
    const holder = JSON.parse(await readFile(lock, "utf8")) as { pid: number };
    assert.equal(holder.pid, process.pid);
  });
});
