import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { checkResponse, succeeded } from "./support/envelopes.ts";
import { startFuzzPlatform } from "./support/fuzz-platform.ts";
import { send } from "./support/http-client.ts";
import {
  honoPath,
  type OpenApiDocument,
  type Operation,
  operationRequests,
  operationsOf,
  routeFamily,
} from "./support/openapi-operations.ts";
import { VALID_AUTH } from "./support/request-parts.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

/** Inputs per operation; spec 001's `/apis/v2d` twins of `/apis/v2` get fewer, being the same code. */
const RUNS = 80;
const TWIN_RUNS = 20;

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();
const document = JSON.parse(
  (await send(platform.url, { method: "GET", path: "/openapi.json" })).body.toString(),
) as OpenApiDocument;
const documented = operationsOf(document);

after(async () => {
  await tally.report();
  await platform.stop();
});

/**
 * Any input to an operation gets its surface's envelope, never a 5xx of ours, a stack trace or a
 * path; and a caller without a valid token (or the operator's) never gets a protected route to succeed.
 */
async function fuzzOperation(operation: Operation, runs: number): Promise<void> {
  await fuzzProperty({
    baseUrl: platform.url,
    tally,
    family: routeFamily(operation.template),
    runs,
    arbitrary: operationRequests(operation, document, platform),
    check: async ({ request, auth }) => {
      const response = await send(platform.url, request);
      checkResponse(request, response);
      if (operation.secured && !VALID_AUTH.has(auth)) {
        assert.ok(
          !succeeded(response),
          `${request.method} ${request.path} succeeded with a ${auth} token: ${response.status}`,
        );
      }
    },
  });
}

describe("every route the gateway serves, fuzzed", () => {
  it("finds every registered route in /openapi.json", async () => {
    const fuzzed = new Set(documented.map((op) => `${op.method} ${honoPath(op.template)}`));
    const undocumented = (await platform.registeredRoutes())
      .filter((route) => route.method !== "ALL" && !route.path.includes("*"))
      .map((route) => `${route.method} ${route.path}`)
      .filter((route) => !fuzzed.has(route));
    assert.deepEqual([...new Set(undocumented)], [], "routes the gateway serves that /openapi.json lacks");
  });

  for (const operation of documented) {
    const twin = operation.template.startsWith("/apis/v2d/");
    it(`${operation.method} ${operation.template}`, () => fuzzOperation(operation, twin ? TWIN_RUNS : RUNS));
  }
});
