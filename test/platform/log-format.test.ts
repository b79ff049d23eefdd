import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { prettyLine, resolveLogFormat } from "../../runtime/log-format.ts";
import { tempDir } from "../support/platform.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

describe("log lines for a person at a terminal", () => {
  it("are JSON unless the output is a terminal or LOG_FORMAT says otherwise", () => {
    assert.equal(resolveLogFormat("auto", { isTTY: true }), "pretty");
    assert.equal(resolveLogFormat("auto", { isTTY: false }), "json");
    assert.equal(resolveLogFormat("auto", {}), "json");
    assert.equal(resolveLogFormat("json", { isTTY: true }), "json");
    assert.equal(resolveLogFormat("pretty", { isTTY: false }), "pretty");
  });

  it("show the time, the level, the process, the message and the details as key=value", () => {
    const time = Date.UTC(2026, 10, 29, 12, 3, 4, 567);
    const line = prettyLine(
      JSON.stringify({
        level: "warn",
        time,
        pid: 42,
        name: "platform",
        msg: "request failed",
        route: "/file/:id",
        status: 404,
        reason: "no file 7",
      }),
      false,
    );
    assert.equal(
      line,
      '12:03:04.567 WARN  platform: request failed route=/file/:id status=404 reason="no file 7"\n',
    );
  });

  it("put an error's stack under its line, indented", () => {
    const line = prettyLine(
      JSON.stringify({
        level: "error",
        time: 0,
        name: "worker",
        msg: "job failed",
        err: { stack: "Error: boom\n    at x" },
      }),
      false,
    );
    assert.equal(line, "00:00:00.000 ERROR worker: job failed\n    Error: boom\n        at x\n");
  });

  it("are what the platform writes with LOG_FORMAT=pretty", async () => {
    const dir = await tempDir();
    const child = spawn(process.execPath, ["--import", "tsx", "bin/platform.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LOG_FORMAT: "pretty",
        PORT: "0",
        DATA_DIR: dir.path,
      },
    });
    try {
      let output = "";
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (/ INFO {2}platform: serving url=http:\/\/localhost:\d+/.test(output)) resolve();
        });
        child.on("exit", (code) =>
          reject(new Error(`the platform exited (${code}) before serving:\n${output}`)),
        );
      });
      assert.doesNotMatch(output, /^\{/m, "no JSON line");
    } finally {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      await dir.remove();
    }
  });
});
