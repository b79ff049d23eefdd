import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface PushedMessage {
  idempotencyKey: string;
  account: string;
  message: Record<string, unknown>;
}

/** An answer given in place of taking a message: a status and JSON body, or none at all (a hang). */
export type ScriptedAnswer = { status: number; body: unknown } | "no answer";

/**
 * A local stand-in for the campus app's push API: records every message it takes with its
 * idempotency key, and refuses accounts told to have no app installed with the campus app's
 * `400 {errno: 40001}`. An account's next messages can be given scripted answers instead (a 5xx,
 * an `errno` on a 200, no answer), one per message, before it takes them again.
 */
export class CampusAppStandIn {
  /** The messages taken (answered 200 with `errno: 0`). */
  readonly received: PushedMessage[] = [];
  /** Every message asked of it, taken or not. */
  readonly requests: PushedMessage[] = [];
  readonly notInstalled = new Set<string>();
  readonly scripted = new Map<string, ScriptedAnswer[]>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(token: string): Promise<CampusAppStandIn> {
    let standIn: CampusAppStandIn | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const reply = (status: number, body: unknown) => {
          response.writeHead(status, { "content-type": "application/json" });
          response.end(JSON.stringify(body));
        };
        if (request.headers.authorization !== `Bearer ${token}`)
          return void reply(401, { errno: 40100, error: "unauthorized" });
        if (request.method !== "POST" || request.url !== "/messages")
          return void reply(404, { errno: 40400, error: "not found" });
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          account: string;
          message: Record<string, unknown>;
        };
        const pushed = {
          idempotencyKey: String(request.headers["idempotency-key"]),
          account: body.account,
          message: body.message,
        };
        standIn!.requests.push(pushed);
        const scripted = standIn!.scripted.get(body.account)?.shift();
        if (scripted === "no answer") return;
        if (scripted) return void reply(scripted.status, scripted.body);
        if (standIn!.notInstalled.has(body.account)) {
          return void reply(400, { errno: 40001, error: `app not installed for ${body.account}` });
        }
        standIn!.received.push(pushed);
        reply(200, { errno: 0, error: "", id: `push-${standIn!.received.length}` });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    standIn = new CampusAppStandIn(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return standIn;
  }

  close(): Promise<void> {
    // Requests left without an answer would hold the server open.
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
