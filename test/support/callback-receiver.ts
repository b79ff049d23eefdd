import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A callback as a receiver got it, and what it answered (null: it held the request). */
export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's `id`: the outbox event's. */
  eventId: string;
  /** The body's `process`. */
  process: string;
  answered: number | null;
}

/** What a receiver answers a callback: a status, or "hold" to keep the request open until it closes. */
export type ReceiverReply = (callback: ReceivedCallback, index: number) => number | "hold";

/**
 * A system receiving messenger callbacks on 127.0.0.1: it records every post and answers as
 * `reply` says (which a test may change while it runs), and counts how many posts of one process
 * it has open at once, so a test sees whether a process's callbacks ever overlapped.
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  /** The most posts of one process it had open at once. */
  mostOpenPerProcess = 0;
  private readonly open = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly port: number,
    public reply: ReceiverReply,
    /** How long it takes to answer: a receiver that takes some time shows posts that overlap. */
    private readonly delayMs: number,
  ) {}

  static async start(reply: ReceiverReply = () => 200, delayMs = 0): Promise<CallbackReceiver> {
    let receiver: CallbackReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => receiver!.answer(request.headers, Buffer.concat(chunks).toString(), response));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new CallbackReceiver(server, `http://127.0.0.1:${port}`, port, reply, delayMs);
    return receiver;
  }

  private answer(headers: IncomingHttpHeaders, body: string, response: ServerResponse): void {
    let parsed: { id?: unknown; process?: unknown } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {}
    const callback: ReceivedCallback = {
      headers,
      body,
      eventId: String(parsed.id),
      process: String(parsed.process),
      answered: null,
    };
    const index = this.received.length;
    this.received.push(callback);
    const open = (this.open.get(callback.process) ?? 0) + 1;
    this.open.set(callback.process, open);
    this.mostOpenPerProcess = Math.max(this.mostOpenPerProcess, open);
    const status = this.reply(callback, index);
    if (status === "hold") return;
    setTimeout(() => {
      this.open.set(callback.process, (this.open.get(callback.process) ?? 1) - 1);
      callback.answered = status;
      response.writeHead(status, { "content-type": "text/plain" });
      response.end("ok");
    }, this.delayMs);
  }

  /** The callbacks it answered 2xx. */
  accepted(): ReceivedCallback[] {
    return this.received.filter((callback) => callback.answered !== null && callback.answered < 300);
  }

  /** Closes it, cutting the requests it holds. */
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
