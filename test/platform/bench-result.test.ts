import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { atMost, higherIsBetter, ratioAtMost } from "../../bench/bench-result.ts";

describe("benchmark rows", () => {
  it("a throughput passes on its ratio to the same run's reference, not on the issue's figure", () => {
    // A machine four times slower: 430 tasks a second where the bare reference did 1,200.
    const slowMachine = higherIsBetter("workflow.submit-throughput", "tasks/s", 430, 1200, 0.15, {
      absoluteTarget: 500,
    });
    assert.equal(slowMachine.pass, true);
    assert.equal(slowMachine.absolutePass, false);
    assert.equal(slowMachine.ratio, 0.358);
    assert.equal(slowMachine.bar, "ratio");
    assert.equal(slowMachine.target, 0.15);
    assert.equal(slowMachine.absoluteTarget, 500);

    // Slower code on a fast machine: the figure still held, the ratio not.
    const slowerCode = higherIsBetter("workflow.submit-throughput", "tasks/s", 690, 5000, 0.15, {
      absoluteTarget: 500,
    });
    assert.equal(slowerCode.pass, false);
    assert.equal(slowerCode.absolutePass, true);
  });

  it("a latency passes under a ceiling on its ratio, not under the issue's milliseconds", () => {
    // The start's p99 at 96 ms where its median is 45 ms: 2.13 times, a tail as on every machine.
    const slowMachine = ratioAtMost("workflow.start-p99", "ms", 96, 45, 2.6, { absoluteTarget: 50 });
    assert.equal(slowMachine.better, "lower");
    assert.equal(slowMachine.ratio, 2.133);
    assert.equal(slowMachine.pass, true);
    assert.equal(slowMachine.absolutePass, false);

    // A tail grown to three medians fails although it is within 50 ms.
    const longerTail = ratioAtMost("workflow.start-p99", "ms", 45, 15, 2.6, { absoluteTarget: 50 });
    assert.equal(longerTail.pass, false);
    assert.equal(longerTail.absolutePass, true);

    // At the bar passes.
    assert.equal(ratioAtMost("seal.10-pages-signed", "ms", 30, 10, 3).pass, true);
  });

  it("a ratio the case measured itself (paired rounds) decides over value / reference", () => {
    const row = higherIsBetter("gateway.trivial-route", "req/s", 50_000, 80_000, 0.7, { ratio: 0.72 });
    assert.equal(row.ratio, 0.72);
    assert.equal(row.pass, true);
    assert.equal(row.absoluteTarget, undefined);
    assert.equal(row.absolutePass, undefined);
  });

  it("a quantity no machine's speed changes keeps its absolute bar", () => {
    const grown = atMost("seal.50mb-gateway-memory", "MB", 45, 50, 40);
    assert.equal(grown.bar, "absolute");
    assert.equal(grown.pass, false);
    assert.equal(grown.ratio, 0.9);
    assert.equal(atMost("load.errors", "outcomes", 0, 15_900, 0).pass, true);
    assert.equal(atMost("load.errors", "outcomes", 1, 15_900, 0).pass, false);
  });
});
