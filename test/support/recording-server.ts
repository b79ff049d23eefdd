import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP endpoint that records every request and answers with what `reply` says. */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** `delayMs` holds each answer back, as a slow upstream would; `port` 0 picks a free one. */
  static async start(
    reply: (request: RecordedRequest) => { status: number; body: unknown },
    delayMs = 0,
    port = 0,
  ): Promise<RecordingServer> {
    let recorder: RecordingServer | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const recorded = {
          method: request.method ?? "",
          path: request.url ?? "",
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        };
        recorder!.requests.push(recorded);
        const { status, body } = reply(recorded);
        setTimeout(() => {
          response.writeHead(status, { "content-type": "application/json" });
          response.end(JSON.stringify(body));
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    recorder = new RecordingServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return recorder;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
