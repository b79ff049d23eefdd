import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);

describe("a machine without Postgres and RabbitMQ", () => {
  it("lists every distributed test as skipped, with the reason, instead of leaving it out", async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      AMQP_URL: "amqp://nobody:nobody@127.0.0.1:1",
    };
    delete env.CI;
    delete env.NODE_TEST_CONTEXT;
    const { stdout, stderr } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        "--test",
        "--test-reporter=tap",
        "--test-reporter-destination=stdout",
        "--test-reporter=./test/support/skip-summary-reporter.mjs",
        "--test-reporter-destination=stderr",
        "test/platform/metrics.test.ts",
      ],
      { env, maxBuffer: 16 * 1024 * 1024 },
    );
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(stdout)?.[1]);
    const reasons = stdout.match(
      /# SKIP Postgres at postgres:\/\/nobody@127\.0\.0\.1:1\/none and RabbitMQ at .* unreachable/g,
    );
    assert.ok(count("skipped") >= 2, "the distributed tests count as skipped");
    assert.equal(reasons?.length, count("skipped"), "each skipped test says why");
    assert.equal(count("fail"), 0);
    assert.match(
      stderr,
      new RegExp(
        `^${count("skipped")} tests skipped on this machine .*\\n {2}${count("skipped")} × Postgres at postgres://nobody@127\\.0\\.0\\.1:1/none and RabbitMQ at .* unreachable$`,
        "m",
      ),
      "the run ends with what it skipped and why",
    );
  });
});
