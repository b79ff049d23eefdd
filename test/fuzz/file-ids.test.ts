import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { percentEncode, TRAVERSALS, traversal, urlValue } from "./support/arbitraries.ts";
import { checkResponse, succeeded } from "./support/envelopes.ts";
import { ADMIN_TOKEN, SECRET, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, send } from "./support/http-client.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();
const { fileId, secureFileId, fileContent } = platform.known;
const bearer = { authorization: `Bearer ${platform.tokens.sys}` };

after(async () => {
  await tally.report();
  await platform.stop();
});

/** Text that only reading a file off the disk (or the configuration) could put in an answer. */
const SECRETS = ["root:x:0:", "[boot loader]", SECRET, ADMIN_TOKEN, '"applications"'];

/**
 * File ids that try to leave the file service: traversal in every encoding, a real id with
 * something before or after it, a NUL, a real id in another case or with white space.
 */
const hostileId: fc.Arbitrary<string> = fc.oneof(
  traversal,
  fc
    .tuple(fc.constantFrom(fileId, secureFileId), fc.constantFrom(...TRAVERSALS))
    .map(([id, tail]) => `${id}/${tail}`),
  fc
    .tuple(fc.constantFrom(...TRAVERSALS), fc.constantFrom(fileId, secureFileId))
    .map(([head, id]) => `${head}/${id}`),
  fc.constantFrom(
    `${fileId}%00`,
    `${fileId}%2f..%2f..%2fbootstrap.json`,
    `${fileId}.png`,
    `${fileId}%20`,
    `%20${fileId}`,
    fileId.toUpperCase(),
    `${fileId};.png`,
    `${fileId}?`,
    `${fileId}%3F`,
    `..%2f${fileId}`,
    `${fileId.slice(0, -1)}%00`,
    "..%2f..%2f..%2fbootstrap.json",
    "%2e%2e%2f%2e%2e%2fpostgres%2fPG_VERSION",
  ),
  urlValue.map((value) => value.slice(0, 2000)),
);

/** Every route of the file service that takes an id, each with what its callers send. */
const routes = [
  { method: "GET", path: (id: string) => `/file/${id}` },
  { method: "GET", path: (id: string) => `/file/${id}/meta` },
  { method: "GET", path: (id: string) => `/file/${id}/thumb/16x16` },
  { method: "POST", path: (id: string) => `/file/${id}/meta`, body: '{"meta":{"note":"x"}}' },
  { method: "DELETE", path: (id: string) => `/file/${id}` },
  { method: "POST", path: (id: string) => `/file/${id}` },
] as const;

/** The id the router hands the route: the path's dot segments resolved, the segment decoded. */
function routedId(path: string): string | undefined {
  const resolved = new URL(path, "http://platform").pathname;
  const segment = /^\/file\/([^/]+)/.exec(resolved)?.[1];
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

describe("file ids that try to leave the file service", () => {
  // Ranges first: the hostile ids below may name the real file on DELETE and remove it.
  it("serves byte ranges of the file, or 416 with the envelope, whatever the Range header says", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "file ranges",
      runs: 120,
      arbitrary: fc
        .record({
          range: fc.oneof(
            fc
              .tuple(
                fc.option(fc.nat({ max: 2 * fileContent.length }), { nil: undefined }),
                fc.option(fc.nat({ max: 2 * fileContent.length }), { nil: undefined }),
              )
              .map(([start, end]) => `bytes=${start ?? ""}-${end ?? ""}`),
            fc.constantFrom(
              "bytes=0-",
              "bytes=-0",
              "bytes=5-2",
              "bytes=-",
              "bytes=0-1,4-5",
              "bytes=99999999999999999999-",
              "bytes=0-99999999999999999999",
              "bytes=1e309-",
              "bytes=-1e309",
              "bytes= 1-2",
              "items=0-1",
              "bytes=0x10-",
              "bytes=-9007199254740993",
              "",
            ),
          ),
          match: fc.constantFrom(undefined, "*", '"nope"', 'W/"x", "y"', ""),
        })
        .map(({ range, match }) =>
          compact({
            request: {
              method: "GET",
              path: `/file/${fileId}`,
              headers: { range, ...(match === undefined ? {} : { "if-none-match": match }) },
            },
          }),
        ),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        if (answer.status === 200) assert.ok(answer.body.equals(fileContent), "the whole file, altered");
        if (answer.status === 416)
          assert.equal(answer.headers["content-range"], `bytes */${fileContent.length}`);
        if (answer.status !== 206) return;
        const bounds = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(answer.headers["content-range"]));
        assert.ok(bounds, `Content-Range ${answer.headers["content-range"]}`);
        const [start, end, size] = bounds.slice(1).map(Number) as [number, number, number];
        assert.equal(size, fileContent.length);
        assert.ok(
          answer.body.equals(fileContent.subarray(start, end + 1)),
          "the range is not that part of the file",
        );
      },
    }));
  it("never answers with anything but the file named, on every file route", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "file ids",
      runs: 300,
      arbitrary: fc
        .record({
          route: fc.constantFrom(...routes),
          id: hostileId,
          token: fc.constantFrom(undefined, platform.tokens.sys, "garbage"),
        })
        .map(({ route, id, token }) =>
          compact({
            request: {
              method: route.method,
              path: `${route.path(id)}${token ? `?access_token=${percentEncode(token)}` : ""}`,
              headers: "body" in route ? { "content-type": "application/json", ...bearer } : {},
              ...("body" in route ? { body: route.body } : {}),
            },
          }),
        ),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        const text = answer.body.toString("latin1");
        for (const secret of SECRETS)
          assert.ok(!text.includes(secret), `the answer holds ${JSON.stringify(secret)}`);
        const id = routedId(request.path);
        // An id of dots takes the client's URL itself to `/` (`/file/%2e%2e` is `/`, before it is
        // sent): that request never reaches the file service, and the public landing page answers.
        const toLandingPage = new URL(request.path, "http://platform").pathname === "/";
        if (succeeded(answer) && answer.status !== 304 && !toLandingPage)
          assert.ok(id === fileId || id === secureFileId, `a file answered for id ${JSON.stringify(id)}`);
      },
    }));
});
