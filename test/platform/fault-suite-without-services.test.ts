import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../support/platform.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the fault suite on a machine whose Postgres and RabbitMQ are not running", () => {
  it("ends with a failure that says what it needs, rather than hanging on servers it started", async () => {
    const [dbPort, amqpPort] = [await freePort(), await freePort()];
    // Without CI (which fails instead of skipping) and the runner's own context (which a nested run would take for its parent's).
    const { CI: _ci, NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const files = (await readdir(`${ROOT}/test/faults`)).filter((name) => name.endsWith(".test.ts"));
    const started = Date.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      // Far longer than the run takes: a run still going by then is the hang this guards against.
      execFile(
        process.execPath,
        ["--import", "tsx", "--test", "--test-concurrency=1", ...files.map((name) => `test/faults/${name}`)],
        {
          cwd: ROOT,
          timeout: 120_000,
          env: {
            ...env,
            DATABASE_URL: `postgres://nobody@127.0.0.1:${dbPort}/nothing`,
            AMQP_URL: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, output: stdout + stderr }),
      );
    });
    assert.equal(
      typeof code,
      "number",
      `the run was killed after ${Date.now() - started} ms instead of ending`,
    );
    assert.notEqual(code, 0);
    assert.match(output, /the fault suite needs Postgres and RabbitMQ/);
    assert.match(output, new RegExp(`Postgres at postgres://nobody@127\\.0\\.0\\.1:${dbPort}/nothing`));
  });
});
