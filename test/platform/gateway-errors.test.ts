import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OpenAPIHono } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { envelopeFor, errorMapping, httpStatusOf } from "../../gateway/error-envelope.ts";
import type { GatewayEnv } from "../../gateway/gateway-env.ts";
import { listen } from "../../gateway/http-server.ts";
import { surface } from "../../gateway/middleware/surface.ts";

describe("error mapping", () => {
  it("gives every error code one HTTP status and errno", () => {
    for (const code of Object.values(ErrorCode)) {
      const { status, errno } = errorMapping(code);
      assert.ok(status >= 400 && status < 600, `${code} → ${status}`);
      assert.equal(typeof errno, "number");
    }
    assert.equal(errorMapping(ErrorCode.Unauthenticated).errno, 10007, "spec 000's token error number");
    assert.equal(errorMapping(ErrorCode.Unavailable).status, 503);
    assert.equal(errorMapping(ErrorCode.DeadlineExceeded).status, 503);
  });

  it("answers a workflow refusal 200 on the workflow surface and its errno's kind elsewhere", () => {
    const refusals = [
      [new WorkflowRefusal("NOT_A_CANDIDATE", "not yours"), 403],
      [new WorkflowRefusal("APP_NOT_FOUND", "no app"), 404],
      [new WorkflowRefusal("REMARK_REQUIRED", "a remark"), 422],
      [new WorkflowRefusal("NOT_SUPPORTED", "no"), 501],
    ] as const;
    for (const [refusal, status] of refusals) {
      assert.equal(httpStatusOf("workflow", refusal), 200, refusal.refusal);
      assert.equal(httpStatusOf("platform", refusal), status, refusal.refusal);
    }
    const unreadable = new PlatformError(ErrorCode.Unprocessable, "the PDF has no pages");
    assert.equal(httpStatusOf("signature", unreadable), 500, "spec 000's signing failure");
  });

  it("writes spec 000's envelope on the open API and spec 001's Response elsewhere", () => {
    const error = new PlatformError(ErrorCode.Unavailable, "message broker unavailable: not connected");
    assert.deepEqual(envelopeFor("open-api", error), {
      errno: 10503,
      error: "message broker unavailable: not connected",
      total: 0,
    });
    assert.deepEqual(envelopeFor("workflow", error), {
      errno: 10503,
      ecode: "UNAVAILABLE",
      error: "message broker unavailable: not connected",
      total: 0,
      entities: [],
    });
  });
});

describe("graceful HTTP shutdown", () => {
  it("finishes requests in flight and refuses new connections", async () => {
    const app = new OpenAPIHono<GatewayEnv>();
    app.use(surface("workflow"));
    app.get("/slow", async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return c.text("finished");
    });
    const server = await listen(app as never, { host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${server.port}`;
    const inFlight = fetch(`${url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = server.close(5000);
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "finished");
    await closing;
    await assert.rejects(fetch(`${url}/slow`));
  });
});
