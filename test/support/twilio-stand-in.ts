import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSms {
  to: string;
  from: string;
  body: string;
}

/**
 * A local server speaking Twilio's Messages API (the part the twilio client uses to send), so the
 * real client can be pointed at it. Numbers can be told to fail: `failTimes` answers 503 that many
 * times, `invalid` numbers get Twilio's 400 for a bad "To".
 */
export class TwilioStandIn {
  readonly received: ReceivedSms[] = [];
  readonly failTimes = new Map<string, number>();
  readonly invalid = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(accountSid: string, authToken: string): Promise<TwilioStandIn> {
    let standIn: TwilioStandIn | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () =>
        standIn!.handle(
          request.method,
          request.url,
          request.headers.authorization,
          Buffer.concat(chunks).toString(),
          response,
          accountSid,
          authToken,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    standIn = new TwilioStandIn(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return standIn;
  }

  private handle(
    method: string | undefined,
    url: string | undefined,
    authorization: string | undefined,
    body: string,
    response: import("node:http").ServerResponse,
    accountSid: string,
    authToken: string,
  ): void {
    const reply = (status: number, json: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(json));
    };
    const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
    if (authorization !== expectedAuth)
      return void reply(401, { code: 20003, message: "Authenticate", status: 401 });
    if (method !== "POST" || url !== `/2010-04-01/Accounts/${accountSid}/Messages.json`) {
      return void reply(404, { code: 20404, message: "The requested resource was not found", status: 404 });
    }
    const form = new URLSearchParams(body);
    const to = form.get("To") ?? "";
    const failures = this.failTimes.get(to) ?? 0;
    if (failures > 0) {
      this.failTimes.set(to, failures - 1);
      return void reply(503, { code: 20503, message: "Service unavailable", status: 503 });
    }
    if (this.invalid.has(to)) {
      return void reply(400, {
        code: 21211,
        message: `The 'To' number ${to} is not a valid phone number.`,
        status: 400,
      });
    }
    const message = {
      to,
      from: form.get("From") ?? form.get("MessagingServiceSid") ?? "",
      body: form.get("Body") ?? "",
    };
    this.received.push(message);
    reply(201, {
      sid: `SM${randomBytes(16).toString("hex")}`,
      account_sid: accountSid,
      api_version: "2010-04-01",
      status: "queued",
      ...message,
      date_created: new Date().toUTCString(),
      uri: `/2010-04-01/Accounts/${accountSid}/Messages.json`,
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
