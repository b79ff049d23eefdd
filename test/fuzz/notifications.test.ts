import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import {
  NASTY_NUMBER_TEXTS,
  nastyJsonValue,
  nastyNumber,
  nastyString,
  urlValue,
} from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, send } from "./support/http-client.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();
const json = { "content-type": "application/json" };
const sender = { ...json, authorization: `Bearer ${platform.tokens.password}` };
const reader = { authorization: `Bearer ${platform.tokens.sys}` };

after(async () => {
  await tally.report();
  await platform.stop();
});

/** An id several sends give: the first is recorded, the others answered with it and sent no more. */
const REUSED_ID = randomUUID();

/** Notifications the platform has recorded, with the number of recipients each had. */
const recorded = new Map<string, number>();

/** Text within a field's limits most of the time (so a body gets past its schema), anything otherwise. */
const text = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 })),
  },
  { weight: 1, arbitrary: nastyString },
);

/** A recipient of the external channel: mostly well formed, with text of every kind. */
const user = fc.record(
  {
    id: fc.oneof(fc.uuid(), text),
    name: text,
    account: fc.oneof(fc.constantFrom("fuzzer", "sms_fuzzer"), text),
    email: text,
    phone: fc.oneof(fc.constantFrom("+15550000001", ""), text),
    enterprise: fc.record({ id: text, name: text, domain: text }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

/** Any text of at most 30 characters, as the fields of a well-formed notification may hold. */
const plain = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 }));

/** A notification the platform must record: the external channel, recipients, text of any kind. */
const wellFormed = fc.record({
  name: plain,
  content: plain,
  channels: fc.constant(["fuzz_wall"]),
  users: fc.array(fc.record({ name: plain, account: plain, email: plain }), { minLength: 1, maxLength: 3 }),
});

/**
 * A notification for the configured external channel, each field odd or not: text of every kind,
 * lists just past their limits, numbers out of range, an `id` reused, a channel that is not one.
 */
const oddNotification = fc
  .record(
    {
      id: fc.oneof(fc.uuid(), fc.constant(REUSED_ID), nastyString),
      name: text,
      content: text,
      html: text,
      abstract: text,
      channels: fc.oneof(
        fc.constant(["fuzz_wall"]),
        fc.constant(["fuzz_wall", "fuzz_wall"]),
        fc.array(
          fc.oneof(
            fc.constantFrom("fuzz_wall", "email", "sms", "app", "app_sms", "msgapp_template"),
            nastyString,
          ),
          { maxLength: 3 },
        ),
        fc.constant(Array.from({ length: 21 }, () => "fuzz_wall")),
      ),
      users: fc.oneof(
        { weight: 5, arbitrary: fc.array(user, { minLength: 1, maxLength: 4 }) },
        { weight: 1, arbitrary: fc.array(user, { minLength: 101, maxLength: 101, size: "xsmall" }) },
        { weight: 1, arbitrary: nastyJsonValue },
      ),
      app: fc.record(
        {
          displayStyle: fc.constantFrom("basic", "news", "x"),
          abstract: text,
          expireTime: nastyNumber,
        },
        { requiredKeys: [] },
      ),
      emails: fc.array(text, { maxLength: 3 }),
    },
    { requiredKeys: ["channels", "users"] },
  )
  .chain((body) =>
    // A number JSON writes but JavaScript cannot keep, in place of one field.
    fc.option(fc.constantFrom(...NASTY_NUMBER_TEXTS), { freq: 4 }).map((number) => {
      const written = JSON.stringify(body);
      return number === null ? written : written.replace(/"expireTime":[^,}]+/, `"expireTime":${number}`);
    }),
  );

const notification = fc
  .oneof(
    { weight: 1, arbitrary: wellFormed.map((body) => JSON.stringify(body)) },
    { weight: 2, arbitrary: oddNotification },
  )
  .map((body) => compact({ request: { method: "PUT", path: "/v1/notification", headers: sender, body } }));

describe("notifications: send, status and marking with odd input", () => {
  it("records a notification with every task, or refuses it naming the field", async () => {
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "notification send",
      runs: 200,
      arbitrary: notification,
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        if (answer.status !== 200) return;
        const { entities } = JSON.parse(answer.body.toString()) as {
          entities: { id: string; users?: unknown[] }[];
        };
        const [sent] = entities;
        recorded.set(sent!.id, sent!.users?.length ?? 0);
        const status = await send(platform.url, {
          method: "GET",
          path: `/notification/status?id=${sent!.id}`,
          headers: reader,
        });
        checkResponse({ method: "GET", path: "/notification/status" }, status);
        const found = (JSON.parse(status.body.toString()) as { entities: { id: string; tasks: unknown[] }[] })
          .entities;
        assert.equal(found[0]?.id, sent!.id, "a recorded notification is not found by its id");
        assert.ok(found[0]!.tasks.length >= 1, "a recorded notification has no task");
      },
    });
    assert.ok(recorded.size > 0, "no notification was recorded: the property never got past the checks");
  });

  it("answers status queries of any ids, repeated or listed, with the envelope", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "notification status",
      runs: 80,
      arbitrary: fc
        .array(
          fc.oneof(
            fc.constantFrom(...(recorded.size > 0 ? [...recorded.keys()] : [randomUUID()])),
            fc.uuid(),
            urlValue,
            fc.array(fc.uuid(), { minLength: 2, maxLength: 120 }).map((ids) => ids.join(",")),
          ),
          { maxLength: 4 },
        )
        .chain((ids) =>
          fc.constantFrom("id", "notificationId").map((name) => ids.map((id) => `${name}=${id}`).join("&")),
        )
        .map((query) =>
          compact({
            request: {
              method: "GET",
              path: `/notification/status?${query}`.slice(0, 12_000),
              headers: reader,
            },
          }),
        ),
      check: async ({ request }) => {
        checkResponse(request, await send(platform.url, request));
      },
    }));

  it("marks tasks read or refuses the list, whatever the times and ids", async () => {
    const ids = [...recorded.keys()];
    const taskIds: string[] = [];
    for (const id of ids.slice(0, 10)) {
      const status = await send(platform.url, {
        method: "GET",
        path: `/notification/status?id=${id}`,
        headers: reader,
      });
      const [entity] = (JSON.parse(status.body.toString()) as { entities: { tasks: { taskId: string }[] }[] })
        .entities;
      taskIds.push(...(entity?.tasks.map((task) => task.taskId) ?? []));
    }
    const taskId = fc.oneof(
      fc.constantFrom(...(taskIds.length > 0 ? taskIds : [randomUUID()])),
      fc.uuid(),
      nastyString,
    );
    const task = fc.record(
      {
        taskId,
        account: nastyString,
        read: fc.oneof(fc.boolean(), nastyJsonValue),
        readtime: fc.oneof(nastyNumber, fc.constant(-1)),
      },
      { requiredKeys: ["taskId", "read"] },
    );
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "notification mark",
      runs: 80,
      arbitrary: fc
        .oneof(
          { weight: 5, arbitrary: fc.array(task, { minLength: 1, maxLength: 5 }) },
          { weight: 1, arbitrary: fc.array(task, { minLength: 101, maxLength: 101, size: "xsmall" }) },
          { weight: 1, arbitrary: fc.constant([]) },
        )
        .chain((tasks) =>
          fc.option(fc.constantFrom(...NASTY_NUMBER_TEXTS), { freq: 3 }).map((number) => {
            const text = JSON.stringify({ tasks });
            return number === null ? text : text.replace(/"readtime":[^,}]+/, `"readtime":${number}`);
          }),
        )
        .map((body) =>
          compact({
            request: { method: "POST", path: "/notification/status", headers: { ...json, ...reader }, body },
          }),
        ),
      check: async ({ request }) => {
        checkResponse(request, await send(platform.url, request));
      },
    });
  });
});
