import { type IncomingMessage, ServerResponse } from "node:http";

export const REQUEST_ID_HEADER = "X-Request-Id";

type Headers = Parameters<ServerResponse["writeHead"]>[1];

/**
 * The headers a response is written with, plus its request id. The objects name the header
 * literally: a computed key would build each one through V8's slow path.
 */
function withRequestId(headers: Headers | undefined, requestId: string): Headers {
  if (headers === undefined || headers === null) return { "X-Request-Id": requestId };
  if (Array.isArray(headers)) {
    return Array.isArray(headers[0])
      ? [...(headers as string[][]), [REQUEST_ID_HEADER, requestId]]
      : [...(headers as string[]), REQUEST_ID_HEADER, requestId];
  }
  return { ...headers, "X-Request-Id": requestId };
}

/**
 * Node's server response, writing the request's id with its status line. A header set with
 * `setHeader` before `writeHead` makes Node merge the two header sets one by one on every response;
 * added to the headers `writeHead` is given, the id costs a copy of a two-entry object.
 */
export class RequestIdResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  /** Set by the request log as the request arrives; written once, with the status line. */
  requestId: string | undefined = undefined;

  override writeHead(statusCode: number, reasonOrHeaders?: string | Headers, headers?: Headers): this {
    const requestId = this.requestId;
    if (requestId === undefined) return super.writeHead(statusCode, reasonOrHeaders as string, headers);
    this.requestId = undefined;
    return typeof reasonOrHeaders === "string"
      ? super.writeHead(statusCode, reasonOrHeaders, withRequestId(headers, requestId))
      : super.writeHead(statusCode, withRequestId(reasonOrHeaders, requestId));
  }
}
