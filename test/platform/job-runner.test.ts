import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import type { JobCatalogue } from "../../contracts/jobs.ts";
import { EmbeddedBroker } from "../../runtime/broker/embedded-broker.ts";
import { ConfigError } from "../../runtime/config.ts";
import { type JobContext, startJobConsumers } from "../../workers/job-runner.ts";
import { silentLogger, waitFor, waitForDeadLetters } from "../support/wait.ts";

const catalogue = {
  greet: {
    queue: "test.greet",
    description: "says hello",
    payload: z.object({ name: z.string().min(1) }),
    retryDelaysMs: [10],
    timeoutMs: 1000,
    concurrency: 2,
  },
  other: {
    queue: "test.other",
    description: "has no handler here",
    payload: z.object({}),
    retryDelaysMs: [],
    timeoutMs: 1000,
    concurrency: 1,
  },
} satisfies JobCatalogue;

describe("job runner", () => {
  it("validates the payload, then calls the job's handler with its context", async () => {
    const broker = new EmbeddedBroker(silentLogger);
    const greeted: { name: string; context: JobContext }[] = [];
    await startJobConsumers(
      broker,
      catalogue,
      {
        greet: async (payload, context) => {
          greeted.push({ name: payload.name, context });
          return { outcome: "done" };
        },
      },
      ["test.greet"],
      silentLogger,
    );
    await broker.publish("test.greet", { name: "Ada" }, { messageId: "row-1" });
    await broker.publish("test.greet", { name: "" });
    await waitFor(() => greeted.length === 1);
    const [letter] = await waitForDeadLetters(broker, "test.greet", 1);
    assert.equal(greeted[0]!.name, "Ada");
    assert.equal(greeted[0]!.context.messageId, "row-1");
    assert.equal(greeted[0]!.context.maxAttempts, 2);
    assert.equal(letter!.attempts, 1, "an invalid payload is not retried");
    assert.match(letter!.reason, /^invalid payload at name: /);
    await broker.close();
  });

  it("aborts the handler's signal when the job times out", async () => {
    const broker = new EmbeddedBroker(silentLogger);
    const signals: AbortSignal[] = [];
    await startJobConsumers(
      broker,
      { greet: { ...catalogue.greet, timeoutMs: 50, retryDelaysMs: [] } },
      {
        greet: async (_payload, context) => {
          signals.push(context.signal);
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
          return { outcome: "done" };
        },
      },
      ["test.greet"],
      silentLogger,
    );
    await broker.publish("test.greet", { name: "Ada" });
    const [letter] = await waitForDeadLetters(broker, "test.greet", 1);
    assert.equal(signals.length, 1);
    assert.equal(signals[0]!.aborted, true, "a handler can stop work its job no longer waits for");
    assert.match(letter!.reason, /timed out after 50 ms/);
    await broker.close();
  });

  it("fails at start for a queue without a job kind or without a handler", async () => {
    const broker = new EmbeddedBroker(silentLogger);
    await assert.rejects(
      startJobConsumers(broker, catalogue, {}, ["test.nowhere"], silentLogger),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message === 'No job kind consumes queue "test.nowhere" (known queues: test.greet, test.other)',
    );
    await assert.rejects(
      startJobConsumers(
        broker,
        catalogue,
        { greet: async () => ({ outcome: "done" }) },
        ["test.greet", "test.other"],
        silentLogger,
      ),
      (error: unknown) =>
        error instanceof ConfigError && error.message === 'No handler for queue "test.other"',
    );
    await broker.close();
  });
});
