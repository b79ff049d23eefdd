import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitFor } from "../support/wait.ts";
import { portalUserTokens, sysToken } from "../support/workflow-fixture.ts";
import {
  EventReader,
  PUSH_SECRET,
  publish,
  published,
  pushBootstrap,
  type SubscribeResult,
  subscribe,
  subscribed,
  within,
} from "./push-support.ts";

/** Long enough that a poll answered within a second of a publish was woken by it, not by its hold's end. */
const HOLD_MS = 3000;

/**
 * Spec 001's push over HTTP, in both running modes: a system publishes (`POST /message`), a user
 * subscribes by long polling (`GET /message/sub`, JSONP too) or by Server-Sent Events
 * (`/message/stream`), each seeing only their own messages of the data mode they ask for.
 */
for (const mode of await testModes()) {
  describe(`push messages over HTTP (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let sys: string;
    let otherSys: string;
    let users: Record<string, string>;
    let aliceId: string;

    /** Polls the gateway holds now. */
    const held = () => platform!.running.push!.size;

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, pushBootstrap());
      platform = await startTestPlatform({ ...env, PUSH_HOLD_MS: String(HOLD_MS) });
      sys = await sysToken(platform.url, "portal", PUSH_SECRET, "sys_message_edit");
      otherSys = await sysToken(platform.url, "other", PUSH_SECRET, "sys_message_edit");
      users = await portalUserTokens(platform.url, PUSH_SECRET, ["alice", "bob"], "task");
      aliceId = (await published(platform.url, sys, { uid: "alice", tid: "task", eid: "warm-up" })).message
        .uid;
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("publishes for a user named by account@domain or GUID, in milliseconds, and reads them after `since`, exclusive", async () => {
      const url = platform!.url;
      const before = Date.now();
      const first = await published(url, sys, { uid: "alice@example.edu", tid: "task", eid: "task-1" });
      assert.equal(first.message.uid, aliceId);
      assert.equal(first.message.type, "task");
      assert.equal(first.message.eid, "task-1");
      assert.equal(first.message.payload, null);
      assert.equal(first.time, first.message.time);
      assert.ok(first.message.time >= before - 1000, `a time in milliseconds: ${first.message.time}`);
      // Two at once, the same millisecond perhaps: two times, each after the one before.
      const [second, third] = await Promise.all([
        published(url, sys, { uid: aliceId, tid: "cc", eid: "cc-1" }),
        published(url, sys, { uid: aliceId, tid: "task", eid: "task-2" }),
      ]);
      const times = [first, second!, third!].map((result) => result.message.time);
      assert.equal(new Set(times).size, 3, `three times: ${times}`);
      assert.ok(Math.min(second!.message.time, third!.message.time) > first.message.time);

      const all = await subscribed(url, users.alice!, { since: String(first.message.time - 1) });
      assert.deepEqual(all.messages.map((message) => message.eid).sort(), ["cc-1", "task-1", "task-2"]);
      assert.deepEqual(
        all.messages.map((message) => message.time),
        [...times].sort((a, b) => a - b),
        "oldest first",
      );
      assert.equal(all.time, Math.max(...times), "`time` is the last message's");
      const after = await subscribed(url, users.alice!, { since: String(first.message.time) });
      assert.deepEqual(
        after.messages.map((message) => message.eid).sort(),
        ["cc-1", "task-2"],
        "`since` is exclusive",
      );
      const byJson = await fetch(`${url}/apis/v2/message`, {
        method: "POST",
        headers: { authorization: `Bearer ${sys}`, "content-type": "application/json" },
        body: JSON.stringify({ uid: "alice", tid: "cc", eid: "as-json" }),
      });
      assert.equal(((await byJson.json()) as { message: { eid: string } }).message.eid, "as-json");
    });

    it("holds a poll until a message arrives, and answers within a second of its publish", async () => {
      const url = platform!.url;
      const start = await subscribed(url, users.alice!, { since: String(Number.MAX_SAFE_INTEGER - 1) });
      assert.deepEqual(start.messages, []);
      // Without `since`: only what arrives from now on.
      const poll = subscribed(url, users.alice!, {});
      await waitFor(() => held() === 1, 5000, "the poll to be held");
      const sent = await published(url, sys, { uid: "alice", tid: "task", eid: "while-held" });
      const answer = await within(poll, 1000, "the held poll");
      assert.deepEqual(
        answer.messages.map((message) => message.eid),
        ["while-held"],
      );
      assert.equal(answer.time, sent.message.time);
    });

    it("keeps the data modes apart and filters by `tid`", async () => {
      const url = platform!.url;
      const since = (await published(url, sys, { uid: "alice", tid: "cc", eid: "mark" })).message.time;
      await published(url, sys, { uid: "alice", tid: "task", eid: "test-task" }, "/apis/v2d");
      await published(url, sys, { uid: "alice", tid: "task", eid: "formal-task" });
      await published(url, sys, { uid: "alice", tid: "cc", eid: "formal-cc" });
      const formal = await subscribed(url, users.alice!, { since: String(since) });
      assert.deepEqual(
        formal.messages.map((message) => message.eid),
        ["formal-task", "formal-cc"],
      );
      const test = await subscribed(url, users.alice!, { since: String(since), test: "true" });
      assert.deepEqual(
        test.messages.map((message) => message.eid),
        ["test-task"],
      );
      const copies = await subscribed(url, users.alice!, { since: String(since), tid: "cc" });
      assert.deepEqual(
        copies.messages.map((message) => message.eid),
        ["formal-cc"],
      );
      const both = await subscribed(url, users.alice!, { since: String(since), tid: "task,cc" });
      assert.equal(both.messages.length, 2);
      const unknown = await subscribe(url, users.alice!, { since: String(since), tid: "task,done" });
      assert.equal(unknown.status, 400);
    });

    it("answers JSONP to a script that sends its token as access_token, and refuses a callback that is not a name", async () => {
      const url = platform!.url;
      const since = (await published(url, sys, { uid: "alice", tid: "task", eid: "for-a-script" })).message
        .time;
      const query = new URLSearchParams({
        access_token: users.alice!,
        since: String(since - 1),
        callback: "campus.push.onMessage",
      });
      const response = await fetch(`${url}/message/sub?${query}`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^application\/javascript/);
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
      const script = await response.text();
      const call = /^\/\*\*\/ campus\.push\.onMessage\((.*)\);$/s.exec(script);
      assert.ok(call, script);
      const result = JSON.parse(call[1]!) as SubscribeResult;
      assert.deepEqual(
        result.messages.map((message) => message.eid),
        ["for-a-script"],
      );

      for (const callback of ["alert(1)//", "a-b", "x.y.z.w.v", "", `f${"a".repeat(64)}`]) {
        query.set("callback", callback);
        const refused = await fetch(`${url}/message/sub?${query}`);
        assert.equal(refused.status, 400, `callback ${JSON.stringify(callback)}`);
        assert.match(refused.headers.get("content-type") ?? "", /^application\/json/);
        assert.ok(
          !(await refused.text()).includes(callback) || callback === "",
          "the callback is not echoed",
        );
      }
      // A refusal reaches the script too: a status is something it cannot read.
      query.set("callback", "onPush");
      query.set("access_token", sys);
      const refusal = await fetch(`${url}/message/sub?${query}`);
      assert.equal(refusal.status, 200);
      const envelope = JSON.parse(/^\/\*\*\/ onPush\((.*)\);$/s.exec(await refusal.text())![1]!);
      assert.equal(envelope.errno, 10003);
    });

    it("lets a user subscribe to their own messages only, never with a sys token", async () => {
      const url = platform!.url;
      const bySys = await subscribe(url, sys, { uid: "alice", since: "0" });
      assert.equal(bySys.status, 403);
      const byBob = await subscribe(url, users.bob!, { uid: "alice", since: "0" });
      assert.equal(byBob.status, 403);
      const byBobGuid = await subscribe(url, users.bob!, { uid: aliceId, since: "0" });
      assert.equal(byBobGuid.status, 403);
      const otherTenant = await subscribe(url, users.alice!, { uid: "carol@other.edu", since: "0" });
      assert.equal(otherTenant.status, 403);
      const noToken = await fetch(`${url}/message/sub?since=0`);
      assert.equal(noToken.status, 401);
      const own = await subscribed(url, users.alice!, { uid: "alice@example.edu", since: "0" });
      assert.ok(own.messages.length > 0);
      assert.ok(own.messages.every((message) => message.uid === aliceId));
    });

    it("publishes for the token's own tenant only, with a sys token of the scope", async () => {
      const url = platform!.url;
      const otherTenant = await publish(url, sys, { uid: "carol@other.edu", tid: "task", eid: "x" });
      assert.equal(otherTenant.status, 403);
      const unknown = await publish(url, sys, { uid: "nobody", tid: "task", eid: "x" });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.body.ecode, "USER_NOT_FOUND");
      const carolFromOther = await publish(url, otherSys, { uid: "alice", tid: "task", eid: "x" });
      assert.equal(carolFromOther.body.ecode, "USER_NOT_FOUND", "alice is not a user of other.edu");
      const byGuidOfOther = await publish(url, otherSys, { uid: aliceId, tid: "task", eid: "x" });
      assert.equal(byGuidOfOther.body.ecode, "USER_NOT_FOUND");
      const byUser = await publish(url, users.alice!, { uid: "alice", tid: "task", eid: "x" });
      assert.equal(byUser.status, 403);
      const badType = await publish(url, sys, { uid: "alice", tid: "done", eid: "x" });
      assert.equal(badType.status, 400);
      const longEid = await publish(url, sys, { uid: "alice", tid: "task", eid: "e".repeat(257) });
      assert.equal(longEid.status, 400);
    });

    it("answers a poll with nothing for it empty once its hold passes, with a time to pass back", async () => {
      const url = platform!.url;
      const since = (await published(url, sys, { uid: "alice", tid: "task", eid: "before-hold" })).message
        .time;
      const started = Date.now();
      const answer = await subscribed(url, users.alice!, { since: String(since), tid: "task", test: "1" });
      const waited = Date.now() - started;
      assert.deepEqual(answer.messages, []);
      assert.ok(waited >= HOLD_MS - 100, `held ${waited} ms`);
      assert.ok(answer.time >= since, "never before `since`");
      assert.ok(Math.abs(answer.time - Date.now()) < 60_000, `the server's time: ${answer.time}`);
      const next = published(url, sys, { uid: "alice", tid: "task", eid: "after-hold" }, "/apis/v2d");
      const again = await subscribed(url, users.alice!, { since: String(answer.time), test: "1" });
      await next;
      assert.deepEqual(
        again.messages.map((message) => message.eid),
        ["after-hold"],
        "a message after the answer's time is read with it",
      );
    });

    it("frees a held poll as soon as its client goes away", async () => {
      const abort = new AbortController();
      const poll = subscribe(platform!.url, users.bob!, {}, abort.signal).catch(() => undefined);
      await waitFor(() => held() === 1, 5000, "the poll to be held");
      abort.abort();
      await poll;
      await waitFor(() => held() === 0, 1000, "the poll to be freed");
    });

    it("streams messages as Server-Sent Events and resumes after Last-Event-ID", async () => {
      const url = platform!.url;
      const abort = new AbortController();
      const response = await fetch(`${url}/message/stream?access_token=${users.alice}`, {
        signal: abort.signal,
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
      const events = new EventReader(response.body!);
      try {
        const sent = await published(url, sys, { uid: "alice", tid: "cc", eid: "streamed" });
        const event = await within(events.next(), 1000, "the streamed message");
        assert.equal(event.data.eid, "streamed");
        assert.equal(event.id, String(sent.message.time));
      } finally {
        abort.abort();
        await events.cancel();
      }
      await waitFor(() => held() === 0, 1000, "the stream to be freed");
      const first = await published(url, sys, { uid: "alice", tid: "task", eid: "while-away-1" });
      await published(url, sys, { uid: "alice", tid: "task", eid: "while-away-2" });
      const again = new AbortController();
      const resumed = await fetch(`${url}/message/stream?since=0`, {
        headers: { authorization: `Bearer ${users.alice}`, "last-event-id": String(first.message.time) },
        signal: again.signal,
      });
      const missed = new EventReader(resumed.body!);
      try {
        const event = await within(missed.next(), 1000, "the message missed");
        assert.equal(event.data.eid, "while-away-2", "resumed after the last event's id, not `since`");
      } finally {
        again.abort();
        await missed.cancel();
      }
      const bySys = await fetch(`${url}/message/stream`, { headers: { authorization: `Bearer ${sys}` } });
      assert.equal(bySys.status, 403);
      await bySys.body?.cancel();
    });

    it("answers held polls at once, empty, when the gateway shuts down", async () => {
      const poll = subscribed(platform!.url, users.bob!, { since: "0" });
      await waitFor(() => held() === 1, 5000, "the poll to be held");
      const stopping = platform!.stop();
      const answer = await within(poll, 1000, "the held poll at shutdown");
      assert.deepEqual(answer.messages, []);
      assert.equal(answer.time, 0, "the time it asked from, to ask again elsewhere");
      await stopping;
      platform = undefined;
    });
  });
}
