import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, stat, utimes } from "node:fs/promises";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { appChannelBootstrap } from "../support/app-channel.ts";
import { tempDir, withBootstrap } from "../support/platform.ts";
import { PlatformProcess } from "../support/platform-processes.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CURRENT_BUILD = `${ROOT}node_modules/.cache/open-platform/builds/current.json`;
/** A source file every entry's build holds. */
const SOURCE = `${ROOT}runtime/process-main.ts`;

/** The directory of the build npm start runs now. */
async function currentBuild(): Promise<string> {
  return (JSON.parse(await readFile(CURRENT_BUILD, "utf8")) as { dir: string }).dir;
}

/**
 * `npm start`'s command with a port that is no number: the built entry runs, finds the mistake in
 * its configuration and exits 78 at once, without starting anything.
 */
async function launchWithBadPort(): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["bin/launch.mjs", "bin/platform.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: "http" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

describe("npm start runs the platform built (bin/launch.mjs)", () => {
  it("reuses its build while no source changes, and builds again after a change", async () => {
    const first = await launchWithBadPort();
    assert.equal(first.code, 78, first.stderr);
    assert.match(first.stderr, /PORT/);
    const built = await currentBuild();

    const again = await launchWithBadPort();
    assert.equal(again.code, 78, again.stderr);
    assert.equal(await currentBuild(), built, "an unchanged tree starts from the same build");

    const { atime, mtime } = await stat(SOURCE);
    await utimes(SOURCE, atime, new Date(mtime.getTime() + 1_000));
    try {
      const changed = await launchWithBadPort();
      assert.equal(changed.code, 78, changed.stderr);
      assert.notEqual(await currentBuild(), built, "a changed source is built again");
    } finally {
      await utimes(SOURCE, atime, mtime);
    }
  });

  it("loads a channel plugin given as a .ts path, whose refusals fail at once as they do from source", async () => {
    const chat = await RecordingServer.start((request) =>
      request.body.includes("refuse-me") ? { status: 400, body: {} } : { status: 200, body: {} },
    );
    const dir = await tempDir("op-launch-");
    let platform: PlatformProcess | undefined;
    try {
      const application = { id: "launch-app", secret: "launch-secret-0123456789abcdefghijk", name: "Launch" };
      const bootstrap = appChannelBootstrap(application, chat.url);
      const env = await withBootstrap(
        { DATA_DIR: dir.path, LOG_LEVEL: "silent" },
        {
          ...bootstrap,
          channels: [
            {
              name: "app",
              plugin: "./plugins/chat-webhook/chat-webhook-plugin.ts",
              config: { webhookUrl: `${chat.url}/hooks/platform` },
              permittedApplications: [application.id],
            },
          ],
        },
      );
      platform = await PlatformProcess.allInOne(env);
      const token = await issueToken(platform.url, application, {
        grant_type: "client_credentials",
        scope: "send_app_notification notifications",
      });
      const sent = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["app"], accounts: ["alice", "refuse-me"], name: "Built" }),
      });
      assert.equal(sent.status, 200);
      const id = ((await sent.json()) as { entities: { id: string }[] }).entities[0]!.id;
      let tasks: { account: string; sendingStatus: string; detail?: string }[] = [];
      await waitFor(
        async () => {
          const status = await fetch(`${platform!.url}/notification/status?id=${id}&access_token=${token}`);
          tasks = ((await status.json()) as { entities: { tasks: typeof tasks }[] }).entities[0]!.tasks;
          return tasks.every((task) => task.sendingStatus === "sent" || task.sendingStatus === "fail");
        },
        20_000,
        "both tasks settled",
      );
      const byAccount = new Map(tasks.map((task) => [task.account, task]));
      assert.equal(byAccount.get("alice")?.sendingStatus, "sent");
      assert.equal(
        byAccount.get("refuse-me")?.sendingStatus,
        "fail",
        "a 400 is refused for good, not retried",
      );
      assert.match(String(byAccount.get("refuse-me")?.detail), /chat webhook answered 400/);
    } finally {
      await platform?.stop();
      await chat.close();
      await dir.remove();
    }
  });
});
