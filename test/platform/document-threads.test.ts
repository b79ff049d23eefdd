import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { DocumentThreads } from "../../workers/document-thread.ts";
import { watchEventLoop } from "../support/event-loop-watch.ts";
import type { TestWork } from "../support/thread-work.ts";

const MODULE = new URL("../support/thread-work.ts", import.meta.url);

function threads(options: { heapMb?: number; timeoutMs?: number; threads?: number } = {}) {
  return new DocumentThreads<TestWork, unknown>({
    module: MODULE,
    setup: { certificate: "from setup" },
    threads: options.threads ?? 1,
    heapMb: options.heapMb ?? 64,
    timeoutMs: options.timeoutMs ?? 30_000,
    subject: "the document",
  });
}

/** Resolves to the error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  assert.fail("expected a rejection");
}

describe("document threads", () => {
  const opened: DocumentThreads<TestWork, unknown>[] = [];
  const pool = (options?: Parameters<typeof threads>[0]) => {
    const made = threads(options);
    opened.push(made);
    return made;
  };
  after(async () => {
    await Promise.all(opened.map((made) => made.close()));
  });

  it("runs the work in a thread started once, with its setup, bytes handed over both ways", async (t) => {
    const work = pool();
    const started = performance.now();
    assert.deepEqual(await work.run({ kind: "setup" }), { certificate: "from setup" });
    const startMs = performance.now() - started;
    const bytes = new Uint8Array([1, 2, 3]);
    const again = performance.now();
    const answer = (await work.run({ kind: "echo", bytes }, { transfer: [bytes.buffer] })) as {
      bytes: Uint8Array;
      length: number;
    };
    const runMs = performance.now() - again;
    assert.deepEqual([...answer.bytes], [2, 3, 4]);
    assert.equal(answer.length, 3);
    assert.equal(bytes.byteLength, 0, "the input's buffer went to the thread");
    t.diagnostic(
      `a thread started and answered in ${startMs.toFixed(0)} ms; the next answer took ${runMs.toFixed(1)} ms`,
    );
  });

  it("passes the work's own refusals on as they were made, and its faults as faults", async () => {
    const work = pool();
    const refused = await rejection(work.run({ kind: "refuse" }));
    assert.ok(refused instanceof PlatformError);
    assert.equal(refused.code, ErrorCode.Unprocessable);
    assert.equal(refused.message, "refused as asked");
    assert.equal(refused.field, "file");
    const fault = await rejection(work.run({ kind: "throw" }));
    assert.ok(!(fault instanceof PlatformError), "a fault is not the caller's error");
    assert.equal(fault.name, "TypeError");
    assert.equal(fault.message, "a fault of the work's own");
  });

  it("refuses work that runs out of stack, heap or time as too large or complex, and goes on", async () => {
    const work = pool({ heapMb: 32, timeoutMs: 1000 });
    const cases: [TestWork["kind"], RegExp][] = [
      ["recurse", /^the document is too large or too complex to process: its objects nest too deeply$/],
      [
        "allocate",
        /^the document is too large or too complex to process: it needs more than 32 MB of memory$/,
      ],
      ["spin", /^the document is too large or too complex to process: it takes longer than 1000 ms$/],
    ];
    for (const [kind, message] of cases) {
      const watch = watchEventLoop();
      const refused = await rejection(work.run({ kind } as TestWork));
      const report = watch.stop();
      assert.ok(refused instanceof PlatformError, `${kind}: ${refused.stack}`);
      assert.equal(refused.code, ErrorCode.InvalidArgument, kind);
      assert.match(refused.message, message);
      assert.ok(
        report.longestBlockMs < 100,
        `${kind} blocked the event loop for ${report.longestBlockMs} ms`,
      );
      assert.deepEqual(await work.run({ kind: "setup" }), { certificate: "from setup" }, `after ${kind}`);
    }
  });

  it("counts a document's time from its work, not from loading what it needs", async () => {
    const work = pool({ timeoutMs: 300 });
    assert.equal(await work.run({ kind: "slow-load", loadMs: 900 }), "loaded");
  });

  it("ends the thread when the caller gives up, and serves the next caller", async () => {
    const work = pool();
    await work.run({ kind: "setup" });
    const controller = new AbortController();
    const spinning = work.run({ kind: "spin" }, { signal: controller.signal });
    controller.abort(new Error("the job timed out"));
    const error = await rejection(spinning);
    assert.equal(error.message, "the job timed out");
    assert.deepEqual(await work.run({ kind: "setup" }), { certificate: "from setup" });
  });

  it("runs at most its number of threads at once, the rest waiting their turn", async () => {
    const work = pool({ threads: 2 });
    const bytes = () => new Uint8Array([7]);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => work.run({ kind: "echo", bytes: bytes() })),
    );
    const echoes = answers as { bytes: Uint8Array; thread: number }[];
    assert.deepEqual(
      echoes.map((echo) => [...echo.bytes]),
      [[8], [8], [8], [8], [8]],
    );
    assert.ok(new Set(echoes.map((echo) => echo.thread)).size <= 2, "two threads at most");
    await work.close();
    await assert.rejects(work.run({ kind: "setup" }), /closed/);
  });
});
