import { z } from "@hono/zod-openapi";
import { PUSH_TYPES, type StoredPushMessage } from "../push/push-messages.ts";
import type { PushAnswer } from "../push/push-reads.ts";

/** Spec 001's Message: `time` in Unix milliseconds, `payload` reserved (always null). */
export const pushMessageSchema = z
  .object({
    uid: z.uuid().openapi({ description: "the user's GUID" }),
    type: z.enum(PUSH_TYPES as ["task", "cc"]),
    eid: z.string().openapi({ description: "the event's id (empty when the publisher named none)" }),
    time: z.number().int().openapi({ description: "Unix milliseconds; strictly increasing per user" }),
    payload: z.null().openapi({ description: "reserved" }),
  })
  .openapi("PushMessage");

const resultFields = {
  error: z.string().openapi({ description: "empty: a failure answers spec 001's Response envelope instead" }),
  time: z.number().int().openapi({
    description:
      "Unix milliseconds: the last message's time, or when there is none, a time no later message will fall at or before; pass it as the next `since`",
  }),
};

export const publishResultSchema = z
  .object({ ...resultFields, message: pushMessageSchema })
  .openapi("MessageResultOfPublish");

export const subscribeResultSchema = z
  .object({ ...resultFields, messages: z.array(pushMessageSchema) })
  .openapi("MessageResultOfSubscribe");

export function pushMessageOf(message: StoredPushMessage): z.infer<typeof pushMessageSchema> {
  return { uid: message.userId, type: message.type, eid: message.eid, time: message.time, payload: null };
}

export function subscribeResult(answer: PushAnswer): z.infer<typeof subscribeResultSchema> {
  return { error: "", time: answer.time, messages: answer.messages.map(pushMessageOf) };
}
