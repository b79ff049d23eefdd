import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { RequestIdResponse } from "../../gateway/request-id-response.ts";

/** Each path answers through one of the forms of `writeHead` a handler or a library may use. */
const answers: Record<string, (response: ServerResponse) => void> = {
  "/object": (response) => response.writeHead(201, { "Content-Type": "text/plain" }).end("a"),
  "/reason": (response) => response.writeHead(202, "Taken", { "Content-Type": "text/plain" }).end("b"),
  "/flat": (response) => response.writeHead(200, ["Content-Type", "text/plain", "X-Extra", "1"]).end("c"),
  "/nested": (response) => response.writeHead(200, [["X-Extra", "2"]]).end("d"),
  "/bare": (response) => response.writeHead(204).end(),
  "/implicit": (response) => {
    response.setHeader("X-Extra", "3");
    response.end("e");
  },
  // As Hono's Node server writes a route's headers: lower case, nosniff among them.
  "/sniffless": (response) =>
    response.writeHead(200, { "content-type": "image/png", "x-content-type-options": "nosniff" }).end("f"),
};

describe("request id response", () => {
  const server = createServer({ ServerResponse: RequestIdResponse }, (request, response) => {
    const path = request.url!.split("?")[0]!;
    if (!request.url!.includes("anonymous")) (response as RequestIdResponse).requestId = `id${path}`;
    answers[path]!(response);
  });
  let base = "";

  before(async () => {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("writes the id with every form of writeHead, beside the headers given", async () => {
    for (const path of Object.keys(answers)) {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      assert.equal(response.headers.get("x-request-id"), `id${path}`, path);
      if (path === "/reason") assert.equal(response.statusText, "Taken");
      if (path === "/object" || path === "/reason")
        assert.equal(response.headers.get("content-type"), "text/plain");
      if (path === "/flat" || path === "/nested" || path === "/implicit") {
        assert.equal(
          response.headers.get("x-extra"),
          { "/flat": "1", "/nested": "2", "/implicit": "3" }[path],
        );
      }
    }
  });

  it("writes nosniff with every form of writeHead, once", async () => {
    for (const path of Object.keys(answers)) {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    }
  });

  it("writes no id where none was given", async () => {
    const response = await fetch(`${base}/object?anonymous`);
    await response.arrayBuffer();
    assert.equal(response.headers.get("x-request-id"), null);
    assert.equal(response.status, 201);
  });
});
