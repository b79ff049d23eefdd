import type { Broker } from "../contracts/broker.ts";
import type { Database } from "./database.ts";

/** What `/readyz` reports of a process, the gateway's and a worker's alike. */
export interface Readiness {
  status: "ready" | "not ready";
  /** The database answered a query. */
  database: boolean;
  /** The message broker is connected. */
  broker: boolean;
  /** The process is shutting down. */
  draining: boolean;
}

/** Whether the process can do its work: its database and broker reachable, and not stopping. */
export async function readiness(parts: {
  db: Pick<Database, "isReachable">;
  broker: Pick<Broker, "isConnected">;
  draining: { value: boolean };
}): Promise<Readiness> {
  const database = await parts.db.isReachable();
  const broker = parts.broker.isConnected();
  const draining = parts.draining.value;
  const ready = database && broker && !draining;
  return { status: ready ? "ready" : "not ready", database, broker, draining };
}
