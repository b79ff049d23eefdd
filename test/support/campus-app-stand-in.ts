import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface PushedMessage {
  idempotencyKey: string;
  account: string;
  message: Record<string, unknown>;
}

/**
 * A local stand-in for the campus app's push API: records every message with its idempotency
 * key, and refuses accounts told to have no app installed, as the real service does.
 */
export class CampusAppStandIn {
  readonly received: PushedMessage[] = [];
  readonly notInstalled = new Set<string>();

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
          return void reply(401, { error: "unauthorized" });
        if (request.method !== "POST" || request.url !== "/messages")
          return void reply(404, { error: "not_found" });
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          account: string;
          message: Record<string, unknown>;
        };
        if (standIn!.notInstalled.has(body.account)) {
          return void reply(422, {
            error: "not_installed",
            message: `${body.account} has not installed the app`,
          });
        }
        standIn!.received.push({
          idempotencyKey: String(request.headers["idempotency-key"]),
          account: body.account,
          message: body.message,
        });
        reply(200, { id: `push-${standIn!.received.length}` });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    standIn = new CampusAppStandIn(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return standIn;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
