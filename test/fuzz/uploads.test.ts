import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { makePdf } from "../support/pdf-fixtures.ts";
import { nastyString } from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { SEAL_CODE, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, type FuzzRequest, type FuzzResponse, rawExchange, send } from "./support/http-client.ts";
import { BOUNDARY, multipartBody, type Part } from "./support/multipart.ts";
import { assertAlive, fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";
import { ordinaryUpload, type UploadCase, uploadCase } from "./support/upload-cases.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();
const bearer = { authorization: `Bearer ${platform.tokens.sys}` };
const pdf = Buffer.from(await makePdf([{ text: [{ value: "Party A", x: 100, y: 700 }] }, {}]));

after(async () => {
  await tally.report();
  await platform.stop();
});

function uploadRequest(method: string, path: string, upload: UploadCase) {
  return compact({
    upload,
    request: { method, path, headers: { ...upload.headers, ...bearer }, body: upload.body },
  });
}

async function download(id: string): Promise<Buffer> {
  const answer = await send(platform.url, { method: "GET", path: `/file/${id}` });
  assert.equal(answer.status, 200, `GET /file/${id}: ${answer.status}`);
  return answer.body;
}

/** By the time the answer comes, an upload is a file's content or gone, whatever the answer. */
async function assertNothingLeft(before: readonly string[] = []): Promise<void> {
  const left = (await leftovers(join(platform.dataDir, "files"))).filter((path) => !before.includes(path));
  assert.deepEqual(left, [], "uploads neither kept nor removed");
}

/** Sends an upload, noting what lay in storage before, so what it leaves behind is its own. */
async function sendUpload(request: FuzzRequest): Promise<{ answer: FuzzResponse; before: string[] }> {
  const before = await leftovers(join(platform.dataDir, "files"));
  return { answer: await send(platform.url, request), before };
}

/** An ordinary upload is stored and reads back byte for byte; whatever else is stored reads back too. */
async function checkStored(request: FuzzRequest, upload: UploadCase) {
  const { answer, before } = await sendUpload(request);
  checkResponse(request, answer);
  await assertNothingLeft(before);
  const ordinary = ordinaryUpload(upload);
  if (ordinary) assert.equal(answer.status, 200, `an ordinary upload was refused: ${answer.body}`);
  if (answer.status !== 200) return;
  const { entities } = JSON.parse(answer.body.toString()) as { entities: { id: string; size: number }[] };
  const stored = entities[0]!;
  const downloaded = await download(stored.id);
  assert.equal(downloaded.length, stored.size, "the download is not the size the answer gave");
  if (ordinary) assert.ok(downloaded.equals(upload.content), "the download differs from the upload");
}

/** Fields that seal the test PDF: its keyword, or one place on its first page. */
const SEALING_FIELDS: Record<string, string | undefined>[] = [
  { keyword: "Party A" },
  { locations: '[{"pageNo":1,"x":10,"y":10}]' },
];

/** Sealing fields of every kind: location lists, keywords, orders and sequence numbers, odd or not. */
const oddSealFields: fc.Arbitrary<Record<string, string | undefined>> = fc.record({
  locations: fc.option(fc.oneof(nastyString, fc.constantFrom("[]", "{"), locationsText()), {
    nil: undefined,
  }),
  qrCodeLocations: fc.option(fc.oneof(nastyString, locationsText()), { nil: undefined }),
  keyword: fc.option(fc.oneof(nastyString, fc.constant("Party A")), { nil: undefined }),
  keywordOrder: fc.option(fc.oneof(nastyString, fc.constantFrom("0", "1", "2", "3", "-0", "1e309")), {
    nil: undefined,
  }),
  keywordSeq: fc.option(
    fc.oneof(nastyString, fc.constantFrom("1", "0", "10001", "18446744073709551616", "1.5")),
    {
      nil: undefined,
    },
  ),
});

/** Location lists as spec 000 writes them, with numbers out of every range. */
function locationsText(): fc.Arbitrary<string> {
  return fc
    .array(
      fc.record(
        {
          pageNo: fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constantFrom("1", 1.5, null)),
          x: fc.oneof(fc.double({ noNaN: true }), fc.constant("1e309")),
          y: fc.double({ noNaN: true }),
          left: fc.integer(),
          top: fc.integer(),
          width: fc.oneof(fc.double({ noNaN: true }), fc.constant(0)),
          height: fc.integer(),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 120 },
    )
    .map((items) => JSON.stringify(items).replaceAll('"1e309"', "1e309"));
}

describe("uploads: broken multipart, odd parts and names, oversized files", () => {
  it("PUT /file stores what is well formed and refuses the rest with the envelope", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "file uploads",
      runs: 120,
      arbitrary: uploadCase.map((upload) => uploadRequest("PUT", "/file", upload)),
      check: async ({ upload, request }) => checkStored(request, upload),
    }));

  it("POST /file/{id} replaces the content or refuses, never half", async () => {
    const [first] = fc.sample(uploadCase.filter(ordinaryUpload), 1);
    const created = await send(platform.url, uploadRequest("PUT", "/file", first!).request);
    const id = (JSON.parse(created.body.toString()) as { entities: { id: string }[] }).entities[0]!.id;
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "file uploads",
      runs: 40,
      arbitrary: uploadCase.map((upload) => uploadRequest("POST", `/file/${id}`, upload)),
      check: async ({ upload, request }) => checkStored(request, upload),
    });
  });

  it("POST /v1/signature/{eSignCode} refuses broken uploads and files that are not PDFs", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "signature uploads",
      runs: 40,
      arbitrary: uploadCase.map((upload) => uploadRequest("POST", `/v1/signature/${SEAL_CODE}`, upload)),
      check: async ({ request }) => {
        const { answer, before } = await sendUpload(request);
        checkResponse(request, answer);
        await assertNothingLeft(before);
        if (answer.status === 200) assert.equal(answer.headers["content-type"], "application/pdf");
      },
    }));

  it("POST /v1/signature/{eSignCode} seals a real PDF or names the field it cannot use", async () => {
    let sealed = 0;
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "signature uploads",
      runs: 30,
      arbitrary: fc
        .oneof(
          // Fields that must seal, among the odd ones, so the property reaches the sealing itself.
          { weight: 1, arbitrary: fc.constantFrom(...SEALING_FIELDS) },
          { weight: 3, arbitrary: oddSealFields },
        )
        .map((fields) => {
          const parts: Part[] = Object.entries(fields)
            .filter((entry): entry is [string, string] => entry[1] !== undefined)
            .map(([name, data]) => ({ name, data }));
          parts.push({ name: "file", filename: "contract.pdf", type: "application/pdf", data: pdf });
          return compact({
            request: {
              method: "POST",
              path: `/v1/signature/${SEAL_CODE}`,
              headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...bearer },
              body: multipartBody(parts, BOUNDARY),
            },
          });
        }),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        if (answer.status !== 200) return;
        assert.ok(answer.body.subarray(0, 5).equals(Buffer.from("%PDF-")), "not a PDF");
        sealed++;
      },
    });
    assert.ok(sealed > 0, "no input was sealed: the property never got past the checks");
  });

  it("survives uploads whose client goes away in the middle", async () => {
    const head = `PUT /file HTTP/1.1\r\nHost: fuzz\r\nAuthorization: Bearer ${platform.tokens.sys}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 500000\r\n\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`;
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "file uploads",
      runs: 8,
      arbitrary: fc.tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 50 })),
      check: async ([sent, abortAfterMs]) => {
        await rawExchange(platform.url, Buffer.concat([Buffer.from(head), Buffer.alloc(sent, 0x61)]), {
          abortAfterMs,
        });
        await assertAlive(platform.url);
      },
    });
  });

  it("leaves no upload behind, once the clients that went away are gone too", async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await assertNothingLeft();
  });
});

/** Files under `dir` that are uploads in progress or never promoted to a file's content (thumbnails being made are not). */
async function leftovers(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((path) => path.startsWith("uploads"));
}
