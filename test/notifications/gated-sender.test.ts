import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChannelSender, Delivery } from "../../contracts/channel-plugin.ts";
import { GatedSender } from "../../workers/notify/gated-sender.ts";

/** A channel whose sends take a while, counting how many run at once. */
function slowChannel() {
  const state = { running: 0, most: 0, sent: [] as string[] };
  const sender: ChannelSender = {
    async send(delivery) {
      state.running++;
      state.most = Math.max(state.most, state.running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      state.running--;
      state.sent.push(delivery.taskId);
      return { providerMessageId: `p-${delivery.taskId}` };
    },
  };
  return { sender, state };
}

const delivery = (taskId: string) => ({ taskId }) as Delivery;

describe("gated channel sender", () => {
  it("keeps at most maxInFlight sends running and lets every one through", async () => {
    const { sender, state } = slowChannel();
    const gated = new GatedSender(sender, 4);
    const signal = new AbortController().signal;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => gated.send(delivery(`t${i}`), signal)),
    );
    assert.equal(state.most, 4);
    assert.equal(state.sent.length, 40);
    assert.deepEqual(results[7], { providerMessageId: "p-t7" });
  });

  it("does not start a send whose job was aborted while it waited", async () => {
    const { sender, state } = slowChannel();
    const gated = new GatedSender(sender, 1);
    const job = new AbortController();
    const first = gated.send(delivery("first"), new AbortController().signal);
    const waiting = gated.send(delivery("waiting"), job.signal);
    job.abort();
    assert.deepEqual(await first, { providerMessageId: "p-first" });
    assert.equal(await waiting, undefined);
    assert.deepEqual(state.sent, ["first"]);
  });
});
