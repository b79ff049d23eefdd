import { type IncomingMessage, ServerResponse } from "node:http";

export const REQUEST_ID_HEADER = "X-Request-Id";
const NOSNIFF_HEADER = "x-content-type-options";

type Headers = Parameters<ServerResponse["writeHead"]>[1];

/**
 * The headers a response is written with, plus its request id and `nosniff`: no answer of the
 * gateway is read by a browser as a type other than the one it is given. The objects name the
 * headers literally: a computed key would build each one through V8's slow path. `nosniff` is
 * named in lower case, as Hono's headers are, so an answer that sets it too gets it once.
 */
function withRequestId(headers: Headers | undefined, requestId: string): Headers {
  if (headers === undefined || headers === null)
    return { "X-Request-Id": requestId, "x-content-type-options": "nosniff" };
  if (Array.isArray(headers)) {
    return Array.isArray(headers[0])
      ? [...(headers as string[][]), [REQUEST_ID_HEADER, requestId], [NOSNIFF_HEADER, "nosniff"]]
      : [...(headers as string[]), REQUEST_ID_HEADER, requestId, NOSNIFF_HEADER, "nosniff"];
  }
  return { ...headers, "X-Request-Id": requestId, "x-content-type-options": "nosniff" };
}

/**
 * Node's server response, writing the request's id and `nosniff` with its status line: every
 * answer of the gateway carries both, whichever route, error or refusal wrote it. A header set with
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
