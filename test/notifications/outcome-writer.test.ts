import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it, mock } from "node:test";
import type { TaskOutcome } from "../../notifications/delivery-task-store.ts";
import { OutcomeWriter } from "../../workers/notify/outcome-writer.ts";

const sent = (id: string): TaskOutcome => ({
  id,
  status: "sent",
  channel: "app",
  detail: null,
  providerMessageId: null,
  nextAttemptAt: null,
});

/** A write the test lets finish, one at a time, recording the ids of each statement. */
function heldWrites() {
  const statements: string[][] = [];
  const finish: ((error?: Error) => void)[] = [];
  const write = (outcomes: TaskOutcome[]) =>
    new Promise<void>((resolve, reject) => {
      statements.push(outcomes.map((outcome) => outcome.id));
      finish.push((error) => (error ? reject(error) : resolve()));
    });
  return { statements, finish, write };
}

/** A turn of the event loop, for the promises settled so far to run their callbacks. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("outcome writer", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  it("writes a full batch at once, one write at a time, and what waits less than a batch after the delay", async () => {
    const { statements, finish, write } = heldWrites();
    const writer = new OutcomeWriter(write, 2, 20);
    const first = [writer.record(sent("a"))];
    await turn();
    assert.deepEqual(statements, [], "one outcome waits for a second");
    first.push(writer.record(sent("b")));
    assert.deepEqual(statements, [["a", "b"]]);
    const second = [writer.record(sent("c")), writer.record(sent("d")), writer.record(sent("e"))];
    await turn();
    assert.equal(statements.length, 1, "one write at a time");
    finish.shift()!();
    await Promise.all(first);
    assert.deepEqual(statements.at(-1), ["c", "d", "e"], "what came during the write goes in the next");
    finish.shift()!();
    await Promise.all(second);
    const last = writer.record(sent("f"));
    mock.timers.tick(19);
    await turn();
    assert.equal(statements.length, 2);
    mock.timers.tick(1);
    assert.deepEqual(statements.at(-1), ["f"], "written once it has waited the delay");
    finish.shift()!();
    await last;
  });

  it("fails the outcomes of a write that fails, and writes the next ones", async () => {
    const { statements, finish, write } = heldWrites();
    const writer = new OutcomeWriter(write, 1, 20);
    const lost = writer.record(sent("a"));
    const next = writer.record(sent("b"));
    finish.shift()!(new Error("database unavailable"));
    await assert.rejects(lost, /database unavailable/);
    await turn();
    finish.shift()!();
    await next;
    assert.deepEqual(statements, [["a"], ["b"]]);
  });
});
