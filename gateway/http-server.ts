import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getRequestListener, RequestError } from "@hono/node-server";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Gateway } from "./app.ts";
import { envelopeFor } from "./error-envelope.ts";
import { RequestIdResponse } from "./request-id-response.ts";

export interface HttpServer {
  port: number;
  /** Stops accepting connections and waits up to `drainMs` for requests in flight. */
  close(drainMs: number): Promise<void>;
}

export function listen(
  app: Pick<Gateway, "fetch">,
  options: { host: string; port: number },
): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    // serve() of @hono/node-server, with the two ways a request can fail before the gateway sees it
    // answered in the platform's envelope rather than with a bare status.
    // An HTTP/1.1 server: the gateway gets HTTP/1 bindings only.
    const serve = getRequestListener(app.fetch as Parameters<typeof getRequestListener>[0], {
      hostname: options.host,
      errorHandler: answerUnreadableRequest,
    });
    // HTTP/1.1 requires Host (RFC 9112 §3.2): refused here in the envelope, where Node's own check
    // would answer a bare 400.
    const listener = (request: IncomingMessage, response: ServerResponse) => {
      if (request.httpVersion === "1.1" && request.headers.host === undefined) {
        const body = JSON.stringify(
          envelopeFor("platform", new PlatformError(ErrorCode.InvalidArgument, "host: required")),
        );
        response.writeHead(400, { "content-type": "application/json", connection: "close" }).end(body);
        return;
      }
      return serve(request, response);
    };
    const server = createServer({ requireHostHeader: false, ServerResponse: RequestIdResponse }, listener);
    server.on("clientError", answerMalformedRequest);
    // An expectation other than 100-continue gets a bare 417 from Node; RFC 9110 lets a server
    // ignore it instead, and the request is served as any other.
    server.on("checkExpectation", listener);
    // Node hands CONNECT to a listener of its own, and without one drops the connection unanswered.
    server.on("connect", (_request: unknown, socket: Socket) =>
      writeRefusal(
        socket,
        400,
        new PlatformError(ErrorCode.InvalidArgument, "method: CONNECT is not served"),
      ),
    );
    server.listen(options.port, options.host);
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      resolve({ port, close: (drainMs) => closeServer(server, drainMs) });
    });
  });
}

/** Node's statuses for requests its parser refuses, with the platform's error for each. */
function malformedRequestError(code: string | undefined): { status: number; error: PlatformError } {
  if (code === "HPE_HEADER_OVERFLOW")
    return {
      status: 431,
      error: new PlatformError(ErrorCode.PayloadTooLarge, "the request line and headers are too large"),
    };
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW")
    return {
      status: 413,
      error: new PlatformError(ErrorCode.PayloadTooLarge, "chunk extensions are too large"),
    };
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return {
      status: 408,
      error: new PlatformError(ErrorCode.InvalidArgument, "the request did not arrive in time"),
    };
  return {
    status: 400,
    error: new PlatformError(ErrorCode.InvalidArgument, "not a well-formed HTTP request"),
  };
}

/**
 * A request Node parsed but that is not one a URL can be made of (a backslash in the path, a Host
 * that is not a host): the adapter refuses it before the gateway runs.
 */
function answerUnreadableRequest(error: unknown): Response {
  const refused =
    error instanceof RequestError
      ? new PlatformError(ErrorCode.InvalidArgument, `request: ${error.message}`)
      : new PlatformError(ErrorCode.Internal, "internal error");
  return Response.json(envelopeFor("platform", refused), {
    status: refused.code === ErrorCode.Internal ? 500 : 400,
  });
}

/**
 * A request Node's parser refuses (a malformed request line, header or framing) never reaches the
 * gateway; Node would answer it with a bare status. It gets the platform's error envelope instead,
 * written straight to the socket, as Node does, and only while nothing else has been written there.
 */
function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const { status, error: refused } = malformedRequestError(error.code);
  writeRefusal(socket, status, refused);
}

/** An answer written straight to the socket, for requests that never become a request of the gateway. */
function writeRefusal(socket: Socket, status: number, error: PlatformError): void {
  const body = JSON.stringify(envelopeFor("platform", error));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function closeServer(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    // Keep-alive connections with no request in flight would hold close() open until they time out.
    server.closeIdleConnections();
  });
}
