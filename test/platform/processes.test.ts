import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { tempDir } from "../support/platform.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** The environment of a fresh shell: nothing of the platform's own variables. */
function bareEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

function collect(child: ChildProcess): { stdout: string[]; stderr: string[] } {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  child.stdout?.on("data", (chunk: Buffer) => out.stdout.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => out.stderr.push(chunk.toString()));
  return out;
}

async function runToExit(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], { cwd: ROOT, env });
  const output = collect(child);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr: output.stderr.join("") };
}

describe("process entries", () => {
  it("`npm start` with no configuration serves /healthz and /readyz on port 8080, and stops on SIGTERM", async () => {
    const dir = await tempDir();
    const child = spawn("npm", ["start"], {
      cwd: ROOT,
      env: bareEnv({ DATA_DIR: dir.path }),
      detached: true,
    });
    const output = collect(child);
    try {
      await waitFor(
        async () => {
          try {
            return (await fetch("http://127.0.0.1:8080/readyz")).status === 200;
          } catch {
            return false;
          }
        },
        30_000,
        "the platform to be ready on :8080",
      );
      assert.deepEqual(await (await fetch("http://127.0.0.1:8080/healthz")).json(), { status: "ok" });
      const logLines = output.stdout
        .join("")
        .split("\n")
        .filter((line) => line.startsWith("{"));
      const serving = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "serving");
      assert.equal(serving?.url, "http://localhost:8080", "the first log lines say where it serves");
      // SIGTERM to the process group, as a terminal's Ctrl-C or a container stop reaches it.
      process.kill(-child.pid!, "SIGTERM");
      // "close" comes once every process holding the output pipe, npm and node alike, has exited.
      await once(child, "close");
      const messages = output.stdout
        .join("")
        .split("\n")
        .filter((line) => line.startsWith("{"));
      assert.equal(
        JSON.parse(messages.at(-1)!).msg,
        "stopped",
        "the platform finished its graceful shutdown",
      );
      await assert.rejects(fetch("http://127.0.0.1:8080/healthz"), "the port is released");
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      await dir.remove();
    }
  });

  it("`npm start` stops gracefully on a SIGTERM sent to npm alone, as a supervisor sends it", async () => {
    const dir = await tempDir();
    const child = spawn("npm", ["start"], {
      cwd: ROOT,
      env: bareEnv({ DATA_DIR: dir.path }),
      detached: true,
    });
    const output = collect(child);
    try {
      await waitFor(
        async () => {
          try {
            return (await fetch("http://127.0.0.1:8080/readyz")).status === 200;
          } catch {
            return false;
          }
        },
        30_000,
        "the platform to be ready on :8080",
      );
      process.kill(child.pid!, "SIGTERM");
      // "close" comes once every process holding the output pipe, the platform included, has exited.
      await once(child, "close", { signal: AbortSignal.timeout(30_000) });
      const messages = output.stdout
        .join("")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line).msg);
      assert.equal(messages.at(-1), "stopped", "the platform finished its graceful shutdown");
      assert.ok(!messages.includes("second signal: exiting without finishing the shutdown"));
      await assert.rejects(fetch("http://127.0.0.1:8080/healthz"), "the port is released");
    } finally {
      try {
        // npm may be gone while the platform it started still holds the port.
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Every process of the group has exited already.
      }
      await dir.remove();
    }
  });

  it("stops with one clear line when PORT is wrong", async () => {
    const { code, stderr } = await runToExit(["bin/platform.ts"], bareEnv({ PORT: "http" }));
    assert.equal(code, 78);
    assert.equal(
      stderr,
      'Invalid environment variable PORT: expected an integer from 0 to 65535 (0 picks a free port), got "http"\n',
    );
  });

  it("refuses to start a worker for a queue no job travels on", async () => {
    const dir = await tempDir();
    try {
      const { code, stderr } = await runToExit(
        ["bin/worker.ts", "no.such.queue"],
        bareEnv({ DATA_DIR: dir.path }),
      );
      assert.equal(code, 78);
      assert.match(stderr, /^No job kind consumes queue "no\.such\.queue" \(known queues: .*\)\n$/);
      const usage = await runToExit(["bin/worker.ts"], bareEnv({ DATA_DIR: dir.path }));
      assert.equal(usage.code, 78);
      assert.match(usage.stderr, /^Usage: npm run worker -- <queue>/);
    } finally {
      await dir.remove();
    }
  });

  it("`npm run migrate` migrates the database and exits", async () => {
    const dir = await tempDir();
    try {
      const first = spawn("npm", ["run", "-s", "migrate"], {
        cwd: ROOT,
        env: bareEnv({ DATA_DIR: dir.path }),
      });
      const output = collect(first);
      const [code] = (await once(first, "exit")) as [number | null];
      assert.equal(code, 0);
      assert.match(output.stdout.join(""), /"msg":"migrations applied"/);
    } finally {
      await dir.remove();
    }
  });
});
