import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { PUSH_TYPES, type PushType } from "../../push/push-messages.ts";
import type { PushAnswer, PushSubscription } from "../../push/push-reads.ts";
import type { WorkflowTenants } from "../../workflow/workflow-tenants.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { jsonp } from "../middleware/jsonp.ts";
import { serve } from "../operation.ts";
import { pushMessageOf, subscribeResult, subscribeResultSchema } from "../push-schemas.ts";
import { workflowToken } from "../workflow/workflow-access.ts";

/** Unix milliseconds; an empty value counts as absent. */
const milliseconds = z.preprocess(
  (value) => (value === "" ? undefined : value),
  z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
);

const types = z
  .string()
  .max(64)
  .optional()
  .transform((value, context) => {
    const named = (value ?? "")
      .split(",")
      .map((type) => type.trim())
      .filter((type) => type !== "");
    const unknown = named.filter((type) => !PUSH_TYPES.includes(type as PushType));
    if (unknown.length > 0) {
      context.addIssue({ code: "custom", message: `types are ${PUSH_TYPES.join(", ")}; not ${unknown[0]}` });
      return z.NEVER;
    }
    return named.length === 0 ? PUSH_TYPES : [...new Set(named as PushType[])];
  })
  .openapi({ type: "string", description: "comma list of `task` (to-do) and `cc` (copy); both when absent" });

const dataMode = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((value) => value === "true" || value === "1")
  .openapi({
    type: "string",
    description: "`true`: the test data's messages (published on /apis/v2d); formal data's when absent",
  });

const subscriptionQuery = z.object({
  uid: z.string().min(1).max(360).optional().openapi({
    description: "the token's own user, as GUID or account@domain; the token's user when absent",
  }),
  tid: types,
  test: dataMode,
});

const pollQuery = subscriptionQuery.extend({
  since: milliseconds.openapi({
    type: "integer",
    description:
      "Unix milliseconds, exclusive: messages after it; absent, only those that arrive from now on. Pass the answer's `time` back",
  }),
  callback: z
    .string()
    .max(259)
    .optional()
    .openapi({ description: "JSONP: the answer as `/**/ callback(json);` (status 200, errors too)" }),
});

const streamQuery = subscriptionQuery.extend({
  since: milliseconds.openapi({
    type: "integer",
    description: "Unix milliseconds, exclusive; `Last-Event-ID` wins over it. Absent: from now on",
  }),
});

const lastEventId = z.object({
  "last-event-id": milliseconds.openapi({
    type: "integer",
    description: "the last event's id (its message's time), sent again by a reconnecting EventSource",
  }),
});

/**
 * The subscriber: the user token's own user, whom `uid` must name (GUID, account, or
 * account@domain); anyone else, or no user at all, is refused alike, telling nothing of who exists.
 */
async function subscriberOf(
  tenants: WorkflowTenants,
  c: Context<GatewayEnv>,
  uid: string | undefined,
): Promise<string> {
  const token = c.get("token");
  const own = token.userId!;
  if (uid === undefined || uid.toLowerCase() === own) return own;
  const named = await tenants.resolveCode(token, uid, undefined);
  const userId = await tenants.userId(named.tenantId, named.code).catch(() => undefined);
  if (userId !== own)
    throw new PlatformError(ErrorCode.PermissionDenied, "uid: a user subscribes to their own messages only", {
      field: "uid",
    });
  return own;
}

/** One Server-Sent Event per message, its id the message's time (what `Last-Event-ID` resumes from). */
function events(answer: PushAnswer): string {
  return answer.messages
    .map((message) => `id: ${message.time}\ndata: ${JSON.stringify(pushMessageOf(message))}\n\n`)
    .join("");
}

/**
 * Spec 001's push, front end, at `{workflow_base_url}/message`: `/sub` (long polling, JSONP) and,
 * beyond the specification, `/stream` (Server-Sent Events). A user token subscribes to its own
 * user's messages; spec 001 supports no back-end subscription, so a sys token is refused.
 */
export function pushSubscriptionRoutes(deps: GatewayUses<"config" | "oauth" | "push" | "workflowTenants">) {
  const tenants = deps.workflowTenants;
  const app = new OpenAPIHono<GatewayEnv>();
  const encoder = new TextEncoder();
  const token = workflowToken(deps, null, "user");
  const failures = { surface: "workflow" as const, errors: [400, 401, 403, 429, 503] as const };
  const meanings = {
    429: "the user holds as many subscriptions on this gateway as it allows (PUSH_MAX_HELD_PER_USER)",
    503: "the gateway holds as many subscriptions as it may (PUSH_MAX_HELD), or is shutting down",
  } as const;

  serve(app, {
    ...failures,
    meanings,
    method: "get",
    path: "/sub",
    operationId: "subscribeMessages",
    tags: ["Workflow: push"],
    summary:
      "Push: the user's messages after `since` at once, or held until one arrives (PUSH_HOLD_MS), then an empty answer with the `time` to pass back",
    security: [{ bearer: [] }],
    token: [jsonp(), token],
    request: { query: pollQuery },
    responses: {
      200: {
        description: "MessageResult with `messages`, oldest first (JSONP with `callback`)",
        content: {
          "application/json": { schema: subscribeResultSchema },
          "application/javascript": { schema: z.string() },
        },
      },
    },
    handle: async (c) => {
      const query = c.req.valid("query");
      const subscription: PushSubscription = {
        userId: await subscriberOf(tenants, c, query.uid),
        test: query.test,
        types: query.tid,
      };
      const answer = await deps.push.poll(subscription, query.since, c.req.raw.signal);
      c.header("cache-control", "no-store");
      return c.json(subscribeResult(answer), 200);
    },
  });

  serve(app, {
    ...failures,
    meanings,
    method: "get",
    path: "/stream",
    operationId: "streamMessages",
    tags: ["Workflow: push"],
    summary:
      "Push as Server-Sent Events (beyond spec 001): one event per message, its id the message's time; resumes after `Last-Event-ID` or `since`; a comment every PUSH_STREAM_HEARTBEAT_MS",
    security: [{ bearer: [] }],
    token,
    request: { query: streamQuery, headers: lastEventId },
    responses: {
      200: {
        description: "`text/event-stream`: `id: <time>` and `data: <Message JSON>` per message",
        content: { "text/event-stream": { schema: z.string() } },
      },
    },
    handle: async (c) => {
      const query = c.req.valid("query");
      const resumeAfter = c.req.valid("header")["last-event-id"];
      const subscription: PushSubscription = {
        userId: await subscriberOf(tenants, c, query.uid),
        test: query.test,
        types: query.tid,
      };
      // Ended by the client going away, the stream being cancelled, its lifetime, or the gateway
      // shutting down.
      const cancel = new AbortController();
      const signal = AbortSignal.any([c.req.raw.signal, cancel.signal]);
      let output!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          output = controller;
        },
        cancel: () => cancel.abort(),
      });
      const write = (text: string) => {
        if (!signal.aborted) output.enqueue(encoder.encode(text));
      };
      // The stream is admitted (or refused with a status) before anything is sent.
      const { ended } = await deps.push.stream(subscription, resumeAfter ?? query.since, signal, (answer) =>
        write(events(answer)),
      );
      write(": subscribed\n\n");
      const heartbeat = setInterval(() => write(": keep-alive\n\n"), deps.config.push.streamHeartbeatMs);
      // A stream lives no longer than its token (nor PUSH_STREAM_MAX_MS): the EventSource
      // reconnects, resuming with Last-Event-ID, and its token is checked again.
      const lifetime = setTimeout(
        () => cancel.abort(),
        Math.min(deps.config.push.streamMaxMs, c.get("token").expiresAt * 1000 - Date.now()),
      );
      void ended.then(() => {
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        try {
          output.close();
        } catch {
          // Cancelled already: the client went away.
        }
      });
      return new Response(body, {
        status: 200,
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store, no-transform",
          // nginx buffers answers unless told not to.
          "x-accel-buffering": "no",
        },
      });
    },
  });
  return app;
}
