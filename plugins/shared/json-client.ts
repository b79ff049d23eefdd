import { Agent, request } from "undici";

/** What an upstream answered: its status, and its body parsed as JSON (undefined when it is not JSON). */
export interface JsonReply {
  status: number;
  ok: boolean;
  body: unknown;
}

export interface JsonClient {
  /**
   * Sends a JSON body and reads the JSON reply. Rejects when the upstream cannot be reached or
   * does not answer within the client's timeout; any answer, whatever its status, resolves.
   */
  send(
    url: string,
    options: { method?: "POST" | "PUT"; headers?: Record<string, string>; body: string },
  ): Promise<JsonReply>;
  close(): Promise<void>;
}

/**
 * The HTTP client of the built-in plugins: keep-alive connections to the upstream, and timeouts
 * on the socket rather than an abort signal per request, which is what a delivery worker's hot
 * path can afford.
 */
export function createJsonClient(options: { timeoutMs: number; connections?: number }): JsonClient {
  const agent = new Agent({
    connections: options.connections ?? 64,
    keepAliveTimeout: 30_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connectTimeout: options.timeoutMs,
  });
  return {
    async send(url, { method = "POST", headers = {}, body }) {
      const response = await request(url, {
        method,
        dispatcher: agent,
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      const status = response.statusCode;
      return { status, ok: status >= 200 && status < 300, body: await readJson(response.body) };
    },
    close: () => agent.close(),
  };
}

/** Replies are small; a larger one is read no further and counts as no JSON. */
const MAX_REPLY_BYTES = 1024 * 1024;

async function readJson(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_REPLY_BYTES) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(
      chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
    );
  } catch {
    return undefined;
  }
}
