import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import {
  type FlateFilter,
  type FlatePlace,
  flateBombPdf,
  manyPagesPdf,
  type NestingPlace,
  nestedArraysPdf,
  type PageTreeShape,
  pageTreePdf,
  type XrefShape,
} from "../support/pdf-bombs.ts";
import { makePdf } from "../support/pdf-fixtures.ts";
import { checkResponse } from "./support/envelopes.ts";
import { ADMIN_TOKEN, SEAL_CODE, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { send } from "./support/http-client.ts";
import { BOUNDARY, multipartBody, type Part } from "./support/multipart.ts";
import { assertAlive, fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

/** Small limits, so that bombs past them are cheap to make and to send. */
const MAX_PAGES = 50;
const MAX_NESTING = 20;
const MAX_INFLATED_BYTES = 2 * 1024 * 1024;

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform({
  SIGN_MAX_PAGES: String(MAX_PAGES),
  SIGN_MAX_NESTING: String(MAX_NESTING),
  SIGN_MAX_INFLATED_BYTES: String(MAX_INFLATED_BYTES),
  // Room for the deepest bombs below, which the upload limit would otherwise refuse first.
  SIGN_MAX_UPLOAD_BYTES: String(1024 * 1024),
});
const bearer = { authorization: `Bearer ${platform.tokens.sys}` };

after(async () => {
  await tally.report();
  await platform.stop();
});

type Bomb =
  | {
      kind: "pages";
      pages: number;
      fanOut: number;
      sharedPage: boolean;
      claimedCount: number | undefined;
      xref: XrefShape;
    }
  | { kind: "nesting"; depth: number; place: NestingPlace; dictionaries: boolean; xref: XrefShape }
  | { kind: "tree"; shape: PageTreeShape; depth: number; xref: XrefShape }
  | { kind: "flate"; inflated: number; place: FlatePlace; filter: FlateFilter; xref: XrefShape };

const xref = fc.constantFrom<XrefShape>("valid", "missing", "broken");

/** PDFs past a limit by one shape or another: page counts, nesting, page trees and inflation, any xref. */
const bomb: fc.Arbitrary<Bomb> = fc.oneof(
  fc.record({
    kind: fc.constant("pages" as const),
    pages: fc.integer({ min: MAX_PAGES + 1, max: MAX_PAGES * 20 }),
    fanOut: fc.integer({ min: 3, max: 2000 }),
    sharedPage: fc.boolean(),
    claimedCount: fc.option(fc.integer({ min: -5, max: 2 ** 31 }), { nil: undefined }),
    xref,
  }),
  fc.record({
    kind: fc.constant("nesting" as const),
    depth: fc.oneof(fc.integer({ min: MAX_NESTING + 1, max: 200 }), fc.integer({ min: 200, max: 40_000 })),
    place: fc.constantFrom<NestingPlace>("page", "catalog", "trailer-free object"),
    dictionaries: fc.boolean(),
    xref,
  }),
  fc.record({
    kind: fc.constant("tree" as const),
    shape: fc.constantFrom<PageTreeShape>("chain", "cycle", "doubling"),
    depth: fc.integer({ min: MAX_NESTING + 1, max: 300 }),
    xref,
  }),
  fc.record({
    kind: fc.constant("flate" as const),
    inflated: fc.integer({ min: MAX_INFLATED_BYTES + 1, max: 4 * MAX_INFLATED_BYTES }),
    place: fc.constantFrom<FlatePlace>("object stream", "content", "unused"),
    filter: fc.constantFrom<FlateFilter>("FlateDecode", "Fl", "[/FlateDecode]"),
    xref,
  }),
);

function pdfOf(bomb: Bomb): Buffer {
  switch (bomb.kind) {
    case "pages":
      return manyPagesPdf(bomb.pages, bomb);
    case "nesting":
      return nestedArraysPdf(bomb.depth, bomb);
    case "tree":
      return pageTreePdf(bomb.shape, bomb.depth, bomb);
    case "flate":
      return flateBombPdf(bomb.inflated, bomb);
  }
}

/** Ways of asking for a seal: each reaches the document another way (pdf.js for the keyword). */
const sealing = fc.constantFrom<Record<string, string>>(
  { keyword: "Party A" },
  { locations: JSON.stringify([{ x: 10, y: 10 }]) },
  { locations: JSON.stringify([{ pageNo: 1 }]), qrCodeLocations: JSON.stringify([{ pageNo: 1 }]) },
);

const REFUSAL = new RegExp(
  `^file: the PDF (has more than ${MAX_PAGES} pages|nests (arrays and dictionaries|its page tree) more than ${MAX_NESTING} levels deep)$|^file: the PDF's compressed streams inflate to more than ${MAX_INFLATED_BYTES} bytes$|^the PDF is too large or too complex to process: `,
);

function sealRequest(fields: Record<string, string>, pdf: Buffer) {
  const parts: Part[] = Object.entries(fields).map(([name, data]) => ({ name, data }));
  parts.push({ name: "file", filename: "bomb.pdf", type: "application/pdf", data: pdf });
  return {
    method: "POST",
    path: `/v1/signature/${SEAL_CODE}`,
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...bearer },
    body: multipartBody(parts, BOUNDARY),
  };
}

async function deadSignJobs(): Promise<number> {
  const answer = await send(platform.url, {
    method: "GET",
    path: "/admin/queues",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const { items } = JSON.parse(answer.body.toString()) as { items: { queue: string; dead: number }[] };
  return items.find((item) => item.queue === "sign")!.dead;
}

describe("document bombs sent to be sealed", () => {
  it("POST /v1/signature/{eSignCode} refuses every PDF past a limit with a 400 naming it", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "signature bombs",
      runs: 60,
      arbitrary: fc.record({ bomb, fields: sealing }),
      check: async ({ bomb, fields }) => {
        const request = sealRequest(fields, pdfOf(bomb));
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        const body = answer.body.toString();
        assert.equal(answer.status, 400, body);
        const envelope = JSON.parse(body) as { errno: number; error: string; total: number };
        assert.equal(envelope.errno, -2);
        assert.match(envelope.error, REFUSAL);
      },
    }));

  it("dead-letters none of them, and seals an ordinary PDF after them all", async () => {
    assert.equal(await deadSignJobs(), 0);
    const pdf = Buffer.from(await makePdf([{ text: [{ value: "Party A", x: 100, y: 700 }] }]));
    const answer = await send(platform.url, sealRequest({ keyword: "Party A" }, pdf));
    assert.equal(answer.status, 200, answer.body.toString());
    assert.ok(answer.body.subarray(0, 5).equals(Buffer.from("%PDF-")));
    await assertAlive(platform.url);
  });
});
