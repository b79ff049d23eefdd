import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChannelSender, Delivery } from "../../contracts/channel-plugin.ts";
import { GatedSender, type SendSlot, UNWRITTEN_PER_SEND } from "../../workers/notify/gated-sender.ts";

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

/** One send through a slot, the slot given back once it is done, as the worker does after writing. */
async function sendThrough(gated: GatedSender, taskId: string, signal = new AbortController().signal) {
  const slot = await gated.acquire(signal);
  if (!slot) return undefined;
  try {
    return await slot.send(delivery(taskId));
  } finally {
    slot.release();
  }
}

describe("gated channel sender", () => {
  it("keeps at most maxInFlight sends running and lets every one through", async () => {
    const { sender, state } = slowChannel();
    const gated = new GatedSender(sender, 4);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => sendThrough(gated, `t${i}`)));
    assert.equal(state.most, 4);
    assert.equal(state.sent.length, 40);
    assert.deepEqual(results[7], { providerMessageId: "p-t7" });
  });

  it("does not start a send whose job was aborted while it waited", async () => {
    const { sender, state } = slowChannel();
    const gated = new GatedSender(sender, 1);
    const job = new AbortController();
    const first = sendThrough(gated, "first");
    const waiting = sendThrough(gated, "waiting", job.signal);
    job.abort();
    assert.deepEqual(await first, { providerMessageId: "p-first" });
    assert.equal(await waiting, undefined);
    assert.deepEqual(state.sent, ["first"]);
  });

  it("keeps at most UNWRITTEN_PER_SEND × maxInFlight messages out until their slots are released", async () => {
    const { sender, state } = slowChannel();
    const gated = new GatedSender(sender, 2);
    const signal = new AbortController().signal;
    const held: SendSlot[] = [];
    for (let pair = 0; pair < UNWRITTEN_PER_SEND; pair++) {
      const slots = [(await gated.acquire(signal))!, (await gated.acquire(signal))!];
      await Promise.all(slots.map((slot, i) => slot.send(delivery(`held-${pair}-${i}`))));
      held.push(...slots);
    }
    const next = gated.acquire(signal);
    assert.equal(await settledYet(next), false, "all answered, none written: no further send starts");
    held[0]!.release();
    held[0]!.release();
    const slot = (await next)!;
    await slot.send(delivery("next"));
    assert.equal(state.sent.length, held.length + 1);
    const after = gated.acquire(signal);
    assert.equal(await settledYet(after), false, "a slot released twice frees one place only");
    for (const done of [...held.slice(1), slot]) done.release();
    (await after)!.release();
  });
});

/** Whether the promise has settled once the event loop has gone round (its timers and I/O included). */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}
