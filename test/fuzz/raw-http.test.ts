import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { malformedJsonText, nastyString } from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { BODY_LIMIT_BYTES, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { parseRawResponse, rawExchange } from "./support/http-client.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();

after(async () => {
  await tally.report();
  await platform.stop();
});

/** What a raw request is, and whether the server owes it an answer (a body it waits on, it does not). */
interface RawCase {
  method: string;
  target: string;
  bytes: Buffer;
  answered: boolean;
  summary: string;
}

/** The request's start as text, the token shortened: what a failure report shows of it. */
function summarise(bytes: Buffer): string {
  return JSON.stringify(bytes.toString("latin1").replaceAll(platform.tokens.sys, "<token>").slice(0, 600));
}

function described(raw: Omit<RawCase, "summary">): RawCase {
  const summary = summarise(raw.bytes);
  return Object.defineProperty({ ...raw, summary }, fc.toStringMethod, { value: () => summary });
}

function rawCase(
  method: string,
  target: string,
  head: string[],
  body: Buffer | string = "",
  answered = true,
): RawCase {
  const bytes = Buffer.concat([
    Buffer.from(`${method} ${target} HTTP/1.1\r\n${head.join("\r\n")}\r\n\r\n`, "latin1"),
    Buffer.from(body),
  ]);
  return described({ method, target, bytes, answered });
}

const targets = fc.constantFrom(
  "/healthz",
  "/oauth2/token",
  "/v1/notification",
  "/apis/v2/triple/users",
  "/file",
  "/export/xlsx",
  "/v1/signature/FUZZ-SEAL",
);
const token = `Authorization: Bearer ${platform.tokens.sys}`;

/** Request lines Node's parser or the URL of the adapter must refuse, or must route despite their oddity. */
const oddRequestLine = fc
  .record({
    method: fc.constantFrom(
      "GET",
      "POST",
      "get",
      "G ET",
      "GET\u0000",
      "PRI",
      "CONNECT",
      "TRACE",
      "M".repeat(100),
      "",
      "PUT",
    ),
    target: fc.oneof(
      targets,
      fc.constantFrom(
        "http://evil.example/healthz",
        "//healthz",
        "*",
        "127.0.0.1:80",
        "/he\u0000althz",
        "/he althz",
        "/he\talthz",
        "/\u00ff\u00fe",
        "/a\\b",
        "/%",
        "/healthz#frag",
        `/${"a".repeat(20_000)}`,
        "",
      ),
    ),
    version: fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/1.1x", "", "http/1.1"),
  })
  .map(({ method, target, version }) => {
    const bytes = Buffer.from(
      `${method} ${target} ${version}\r\nHost: fuzz\r\nConnection: close\r\n\r\n`,
      "latin1",
    );
    return described({ method, target, bytes, answered: true });
  });

const UPGRADE = "Connection: upgrade\r\nUpgrade: websocket";
const CONTINUE = "Expect: 100-continue";

/** Headers that are not headers, or say contradictory things about the body. */
const oddHeaders = fc
  .record({
    target: targets,
    headers: fc.array(
      fc.constantFrom(
        "Content-Length: -1",
        "Content-Length: abc",
        "Content-Length: 1e3",
        "Content-Length: 99999999999999999999",
        "Content-Length: 2\r\nContent-Length: 3",
        "Transfer-Encoding: chunked\r\nContent-Length: 2",
        "Transfer-Encoding: gzip, chunked",
        "Transfer-Encoding: identity",
        "Bad Header: x",
        ": empty-name",
        "X-Fold: a\r\n b",
        "X-Ctl: a\u0001b",
        "X-Nul: a\u0000b",
        "Host: ",
        "Host: a b",
        "Host: [::1",
        "Host: evil.example:99999",
        "Host: one\r\nHost: two",
        `X-Huge: ${"h".repeat(20_000)}`,
        "Content-Type: application/json; charset=\u00ff",
        "Authorization: Bearer \u00ff\u00fe",
        CONTINUE,
        "Expect: something-else",
        UPGRADE,
      ),
      { maxLength: 3 },
    ),
    host: fc.boolean(),
  })
  .map(({ target, headers, host }) => {
    // A body goes only with a header that frames it: bytes after a request without one are a second,
    // malformed request. Node stops reading the body of an upgrade it does not take: one that
    // declares a body waits for good. Once Node has written a 100 Continue, a body it cannot parse
    // ends the connection without a second answer, so no mixed-up answer reaches the client.
    const framed = headers.some((header) => /Content-Length|Transfer-Encoding/.test(header));
    const unanswered = framed && (headers.includes(UPGRADE) || headers.includes(CONTINUE));
    const head = [...(host ? ["Host: fuzz"] : []), "Connection: close", token, ...headers];
    return rawCase("POST", target, head, framed ? "{}" : "", !unanswered);
  });

const HUGE_CHUNK = "ffffffffffffffff\r\nx\r\n";

/** Chunked bodies with sizes that are not sizes, extensions too long, or no last chunk. */
const oddChunks = fc
  .record({
    target: targets,
    chunks: fc.array(
      fc.oneof(
        fc.constantFrom(
          "2\r\n{}\r\n",
          "zz\r\nxx\r\n",
          "-1\r\n\r\n",
          HUGE_CHUNK,
          `1;${"e".repeat(20_000)}\r\nx\r\n`,
          "1\r\nxx\r\n",
          "\r\n",
        ),
        malformedJsonText.map((text) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`),
      ),
      { maxLength: 3 },
    ),
    last: fc.constantFrom("0\r\n\r\n", "0\r\nX-Trailer: 1\r\n\r\n", ""),
  })
  .map(({ target, chunks, last }) =>
    rawCase(
      "POST",
      target,
      [
        "Host: fuzz",
        "Connection: close",
        token,
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
      ],
      chunks.join("") + last,
      // A chunk that declares more than is sent, or no last chunk: the server rightly waits for more.
      last !== "" && !chunks.includes(HUGE_CHUNK),
    ),
  );

/** Bodies of bytes that are not text, under a declared length they keep to, or exceed the limit. */
const oddBodies = fc
  .record({
    target: targets,
    type: fc.constantFrom(
      "application/json",
      "application/x-www-form-urlencoded",
      "text/plain",
      "multipart/form-data; boundary=x",
    ),
    body: fc.oneof(
      fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
      nastyString.map((text) => Buffer.from(text)),
      fc.constant(Buffer.alloc(BODY_LIMIT_BYTES + 1, 0x7b)),
    ),
  })
  .map(({ target, type, body }) =>
    rawCase(
      "POST",
      target,
      ["Host: fuzz", "Connection: close", token, `Content-Type: ${type}`, `Content-Length: ${body.length}`],
      body,
    ),
  );

/** A body shorter than its declared length: the server waits for the rest, and the client goes away. */
const shortBodies = fc
  .record({
    target: targets,
    sent: fc.nat({ max: 200 }),
    declared: fc.integer({ min: 201, max: 10_000_000 }),
  })
  .map(({ target, sent, declared }) =>
    rawCase(
      "POST",
      target,
      ["Host: fuzz", token, "Content-Type: application/json", `Content-Length: ${declared}`],
      "{".repeat(sent),
      false,
    ),
  );

describe("malformed HTTP on a raw socket", () => {
  it("answers what it can parse with its surface's envelope and what it cannot with the platform's", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "raw http",
      runs: 360,
      arbitrary: fc.oneof(oddRequestLine, oddHeaders, oddChunks, oddBodies, shortBodies),
      check: async (raw) => {
        const exchange = await rawExchange(
          platform.url,
          raw.bytes,
          raw.answered ? { timeoutMs: 10_000 } : { abortAfterMs: 50 },
        );
        if (!raw.answered) return;
        const response = parseRawResponse(exchange.reply);
        assert.ok(
          response,
          `no answer to ${raw.summary}: ${JSON.stringify(exchange.reply.toString("latin1").slice(0, 300))}`,
        );
        checkResponse({ method: raw.method, path: raw.target.startsWith("/") ? raw.target : "/" }, response);
      },
    }));

  it("keeps serving while many half-sent requests hang on their connections", async () => {
    const pending = Array.from({ length: 50 }, () =>
      rawExchange(
        platform.url,
        Buffer.from(`POST /v1/notification HTTP/1.1\r\nHost: fuzz\r\nContent-Length: 100\r\n\r\n{`),
        { abortAfterMs: 1_000 },
      ),
    );
    const answer = await fetch(`${platform.url}/healthz`);
    assert.equal(answer.status, 200);
    await Promise.all(pending);
    tally.add("raw http", pending.length);
  });
});
