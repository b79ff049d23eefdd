import type { JsonReply } from "../shared/json-client.ts";

/** What one answer of the campus app's push API means for the message. */
export type CampusAppAnswer =
  | { sent: true; messageId?: string }
  | { sent: false; retryable: boolean; reason: string };

/**
 * The campus app took the message on a 2xx whose `errno` is 0 or absent. It may take it later on
 * a 408, a 429 or a 5xx. Anything else will not change: another status, or a 2xx whose `errno` is
 * not 0 (the app reports some refusals, such as notifications turned off, with HTTP 200).
 */
export function readCampusAppAnswer({ status, body }: JsonReply): CampusAppAnswer {
  const reply = isObject(body) ? body : {};
  const refused = reply.errno !== undefined && reply.errno !== null && Number(reply.errno) !== 0;
  if (status >= 200 && status < 300 && !refused) {
    const id = typeof reply.id === "string" || typeof reply.id === "number" ? String(reply.id) : "";
    return id ? { sent: true, messageId: id } : { sent: true };
  }
  const reason = [
    `campus app: ${status}`,
    refused ? `errno ${String(reply.errno)}` : "",
    textOf(reply.error),
    textOf(reply.message),
  ]
    .filter(Boolean)
    .join(" ");
  return { sent: false, retryable: status === 408 || status === 429 || status >= 500, reason };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}
