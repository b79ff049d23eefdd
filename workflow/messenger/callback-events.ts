import type { MessengerEventType } from "../../contracts/workflow-definition.ts";
import type { EngineEvent } from "../engine/engine-result.ts";
import type { OutboxEvent } from "../outbox/outbox-subscriber.ts";

/** The callback type an engine event is delivered as, or undefined when no callback is about it. */
export function callbackTypeOf(event: Pick<OutboxEvent, "type" | "payload">): MessengerEventType | undefined {
  switch (event.type as EngineEvent["type"]) {
    case "process.started":
      return "started";
    case "process.ended":
      return (event.payload as { status?: unknown } | null)?.status === "killed" ? "killed" : "ended";
    case "process.suspended":
      return "suspended";
    case "process.resumed":
      return "resumed";
    case "todo.created":
      return "taskCreated";
    case "todo.done":
      return "taskHandled";
    case "compensate":
      return "compensate";
    default:
      return undefined;
  }
}

/** What a receiver is told of the process's app and version. */
export interface CallbackProcess {
  appCode: string;
  versionNumber: number;
}

/**
 * The JSON a receiver gets: small and about the event only, never the form's data, which the
 * receiver reads through the API with its own token if it needs it (docs/messenger-callbacks.md).
 */
export function callbackBody(event: OutboxEvent, type: MessengerEventType, process: CallbackProcess): string {
  return JSON.stringify({
    id: String(event.id),
    type,
    occurredAt: event.createdAt.getTime(),
    tenant: event.tenantId,
    test: event.test,
    app: process.appCode,
    version: process.versionNumber,
    process: event.processId,
    ...(event.taskId ? { task: event.taskId } : {}),
    ...(event.users.length > 0 ? { users: event.users } : {}),
  });
}
