import { Agent, type IncomingHttpHeaders, request } from "node:http";
import { connect } from "node:net";
import fc from "fast-check";

export interface FuzzRequest {
  method: string;
  /** Sent exactly as given: no normalisation of `..`, no re-encoding. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string;
}

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request that has not been answered by then is a hang, which is a failure of its own. */
export const RESPONSE_TIMEOUT_MS = 20_000;

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

const guarded = new WeakSet<object>();
/**
 * A server may answer before it has read a request's body (a refusal of the caller, of the size)
 * and close the connection; the rest of the body then fails to write (EPIPE). The request has its
 * answer by then and no longer listens to its socket, so the socket gets a listener of its own:
 * what matters while a request is in flight still reaches the request's handler.
 */
function tolerateLateWriteErrors(socket: NodeJS.EventEmitter): void {
  if (guarded.has(socket)) return;
  guarded.add(socket);
  socket.on("error", () => {});
}

/**
 * One request over node:http rather than fetch: fetch resolves `..` segments and re-encodes the
 * path, so the bytes the platform sees would not be the ones the property generated.
 */
export async function send(baseUrl: string, fuzz: FuzzRequest): Promise<FuzzResponse> {
  try {
    return await sendOnce(baseUrl, fuzz);
  } catch (error) {
    // A kept-alive socket the server closed as idle just as the request went out: Node's advice is
    // to retry. The retry opens a connection of its own: the pool may hold more sockets gone stale.
    if ((error as { reusedSocket?: boolean }).reusedSocket) return sendOnce(baseUrl, fuzz, false);
    throw error;
  }
}

function sendOnce(baseUrl: string, fuzz: FuzzRequest, pooled = true): Promise<FuzzResponse> {
  const { hostname, port } = new URL(baseUrl);
  // Framed by Content-Length: without it node:http writes a GET's or DELETE's body unframed.
  const headers =
    fuzz.body === undefined
      ? fuzz.headers
      : { ...fuzz.headers, "content-length": String(Buffer.byteLength(fuzz.body)) };
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: hostname,
        port,
        method: fuzz.method,
        path: fuzz.path,
        headers,
        agent: pooled ? agent : false,
        timeout: RESPONSE_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("socket", tolerateLateWriteErrors);
    outgoing.on("timeout", () =>
      outgoing.destroy(new Error(`no answer within ${RESPONSE_TIMEOUT_MS} ms: ${fuzz.method} ${fuzz.path}`)),
    );
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        Object.assign(new Error(`${error.message}: ${fuzz.method} ${fuzz.path.slice(0, 200)}`), {
          reusedSocket: outgoing.reusedSocket && error.code === "ECONNRESET",
        }),
      ),
    );
    outgoing.end(fuzz.body);
  });
}

export interface RawExchange {
  /** What came back before the server closed the connection (or the timeout). */
  reply: Buffer;
  closedByServer: boolean;
}

/**
 * Writes bytes on a fresh connection and reads until the server closes it: for requests node:http
 * refuses to write (bad header bytes, broken framing). `abortAfterMs` drops the connection early,
 * as a client that goes away in the middle of its body.
 */
export function rawExchange(
  baseUrl: string,
  bytes: Buffer,
  options: { abortAfterMs?: number; timeoutMs?: number } = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const finish = () => resolve({ reply: Buffer.concat(chunks), closedByServer });
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? RESPONSE_TIMEOUT_MS);
    socket.on("connect", () => {
      socket.write(bytes);
      if (options.abortAfterMs !== undefined) setTimeout(() => socket.destroy(), options.abortAfterMs);
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // A whole answer is all the exchange waits for: a kept-alive connection would stay open.
      if (wholeResponse(Buffer.concat(chunks))) socket.destroy();
    });
    socket.on("end", () => {
      closedByServer = true;
      socket.end();
    });
    socket.on("close", () => {
      clearTimeout(timer);
      finish();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A reset after the server answered and closed is an ordinary end of the exchange.
      if (error.code === "ECONNRESET" || error.code === "EPIPE") return;
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** The bytes from the final response on: interim ones (100 Continue) come before it. */
function finalResponse(bytes: Buffer): Buffer {
  let rest = bytes;
  while (/^HTTP\/1\.[01] 1\d\d /.test(rest.subarray(0, 13).toString("latin1"))) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) break;
    rest = rest.subarray(end + 4);
  }
  return rest;
}

/** Whether the bytes hold a whole final response, as its Content-Length or last chunk says. */
function wholeResponse(received: Buffer): boolean {
  const bytes = finalResponse(received);
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const head = bytes.subarray(0, end).toString("latin1").toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) return bytes.length >= end + 4 + Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) return bytes.includes("\r\n0\r\n\r\n", end);
  return /^http\/1\.[01] (204|304)/.test(head);
}

/** The final HTTP response in raw bytes: status, headers and the body its framing delimits. */
export function parseRawResponse(received: Buffer): FuzzResponse | undefined {
  const bytes = finalResponse(received);
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "");
  if (!status) return undefined;
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  const length = Number(headers["content-length"] ?? Number.NaN);
  if (Number.isInteger(length)) body = body.subarray(0, length);
  else if (headers["transfer-encoding"] === "chunked") body = dechunk(body);
  return { status: Number(status[1]), headers, body };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isInteger(size) || size === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** How fast-check prints a generated request in a failure report: its start, not megabytes of it. */
export function compact<T extends { request: FuzzRequest }>(value: T): T {
  const { method, path, headers, body } = value.request;
  const text = body === undefined ? "" : Buffer.from(body).toString("utf8");
  const shown = Number(process.env.FUZZ_SHOW ?? 300);
  const summary = `${method} ${path.slice(0, shown)} ${JSON.stringify(headers ?? {}).slice(0, shown)} body(${text.length}): ${JSON.stringify(text.slice(0, shown))}`;
  return Object.defineProperty(value, fc.toStringMethod, { value: () => summary, enumerable: false });
}
