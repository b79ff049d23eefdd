import assert from "node:assert/strict";
import { distributedSetup, PlatformProcess } from "../support/platform-processes.ts";
import { realServicesSkip } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";
import { portalUserTokens, sysToken } from "../support/workflow-fixture.ts";
import { EventReader, PUSH_SECRET, published, pushBootstrap, subscribed, within } from "./push-support.ts";

/**
 * Two gateway processes of one platform on the real Postgres and RabbitMQ: a message published
 * through one answers the poll, and reaches the stream, that the other holds.
 */
describe("push across two gateways", { skip: await realServicesSkip() }, () => {
  let setup: Awaited<ReturnType<typeof distributedSetup>> | undefined;
  const gateways: PlatformProcess[] = [];
  let sys: string;
  let alice: string;

  /** Subscriptions a gateway holds, off its /metrics. */
  const held = async (gateway: PlatformProcess) =>
    (await gateway.metrics()).get("push_subscriptions_held") ?? 0;

  before(async () => {
    setup = await distributedSetup(pushBootstrap(), { PUSH_HOLD_MS: "5000", METRICS_PUBLIC: "true" });
    const first = await PlatformProcess.gateway(setup.env);
    gateways.push(first);
    // One issuer for both: a token of one is a token of the other.
    gateways.push(await PlatformProcess.gateway({ ...setup.env, PUBLIC_URL: first.url }));
    sys = await sysToken(first.url, "portal", PUSH_SECRET, "sys_message_edit");
    alice = (await portalUserTokens(first.url, PUSH_SECRET, ["alice"], "task")).alice!;
  });

  after(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await setup?.cleanup();
  });

  it("answers a poll held by one gateway with a message published through the other", async () => {
    const [publisher, holder] = gateways as [PlatformProcess, PlatformProcess];
    const poll = subscribed(holder.url, alice, {});
    await waitFor(async () => (await held(holder)) === 1, 10_000, "the poll to be held");
    const sent = await published(publisher.url, sys, { uid: "alice", tid: "task", eid: "across" });
    const answer = await within(poll, 1000, "the poll held by the other gateway");
    assert.deepEqual(
      answer.messages.map((message) => message.eid),
      ["across"],
    );
    assert.equal(answer.time, sent.message.time);
  });

  it("streams to one gateway's subscriber what is published through the other", async () => {
    const [publisher, holder] = gateways as [PlatformProcess, PlatformProcess];
    const abort = new AbortController();
    const response = await fetch(`${holder.url}/message/stream`, {
      headers: { authorization: `Bearer ${alice}` },
      signal: abort.signal,
    });
    const events = new EventReader(response.body!);
    try {
      await waitFor(async () => (await held(holder)) === 1, 10_000, "the stream to be held");
      await published(publisher.url, sys, { uid: "alice", tid: "cc", eid: "streamed-across" });
      const event = await within(events.next(), 1000, "the event on the other gateway");
      assert.equal(event.data.eid, "streamed-across");
    } finally {
      abort.abort();
      await events.cancel();
    }
  });
});
