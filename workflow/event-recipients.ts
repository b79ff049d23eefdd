import type { Queryable } from "../runtime/database.ts";
import type { OutboxEvent } from "./outbox/outbox-subscriber.ts";
import { todoUsersOfTasks } from "./process-store.ts";

/**
 * Whom each event of a new to-do or a copy is about, as the relay reads it: the people whose to-do
 * the task is now (candidates and their delegates; none once it was handled) or the copy's
 * readers. Other events are absent. One query for the batch.
 */
export async function recipientsOf(
  tx: Queryable,
  events: readonly OutboxEvent[],
): Promise<Map<string, { kind: "todo" | "cc"; users: readonly string[] }>> {
  const todo = events.filter((event) => event.type === "todo.created" && event.taskId);
  const todoUsers = await todoUsersOfTasks(
    tx,
    todo.map((event) => event.taskId!),
  );
  const recipients = new Map<string, { kind: "todo" | "cc"; users: readonly string[] }>();
  for (const event of todo)
    recipients.set(event.id, { kind: "todo", users: todoUsers.get(event.taskId!) ?? [] });
  for (const event of events)
    if (event.type === "cc") recipients.set(event.id, { kind: "cc", users: event.users });
  return recipients;
}
