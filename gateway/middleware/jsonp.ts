import type { MiddlewareHandler } from "hono";
import { ErrorCode, localizedError } from "../../contracts/errors.ts";
import type { GatewayEnv } from "../gateway-env.ts";

/**
 * A function name and no more: an identifier, or up to four joined by dots (`app.push.onMessage`).
 * Nothing else can reach the script, so a callback cannot carry code of its own.
 */
const CALLBACK = /^[A-Za-z_$][0-9A-Za-z_$]{0,63}(\.[A-Za-z_$][0-9A-Za-z_$]{0,63}){0,3}$/;

/**
 * JSONP for a `<script>` that subscribes (it sends no headers, so its token comes as
 * `access_token`): with `callback`, the JSON answer (an error's envelope too) becomes
 * `/**\/ callback(json);`, `application/javascript`, status 200, since a script cannot read a
 * status; the leading comment keeps the body from starting with bytes a plug-in could read as its
 * own format. A callback that is not a plain function name is refused.
 */
export function jsonp(): MiddlewareHandler<GatewayEnv> {
  return async function jsonp(c, next) {
    const callback = c.req.query("callback");
    if (callback === undefined) return next();
    if (!CALLBACK.test(callback))
      throw localizedError(
        ErrorCode.InvalidArgument,
        "invalidParameter",
        { field: "callback", detail: "must be a function name: letters, digits, _ and $, joined by dots" },
        { field: "callback" },
      );
    await next();
    if (!c.res.headers.get("content-type")?.startsWith("application/json")) return;
    // U+2028 and U+2029 end a line in older JavaScript, inside a string too.
    const json = (await c.res.text()).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
    c.res = new Response(`/**/ ${callback}(${json});`, {
      status: 200,
      headers: {
        "content-type": "application/javascript; charset=utf-8",
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
      },
    });
  };
}
