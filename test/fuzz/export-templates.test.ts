import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { buildDocx } from "../support/docx-fixtures.ts";
import { LIBREOFFICE, missingSystemPackages, PYTHON_UNO } from "../support/system-requirements.ts";
import { nastyJsonValue, nastyString, percentEncode } from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, type FuzzRequest, send } from "./support/http-client.ts";
import { BOUNDARY, multipartBody } from "./support/multipart.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

/** The one host the operator allows templates from; it does not resolve, so it is never reached either. */
const ALLOWED_HOST = "templates.invalid";

/** A listener on the loopback that counts whoever connects: the internal address templates aim at. */
const trap = createServer((socket) => socket.destroy());
let reached = 0;
trap.on("connection", () => reached++);
await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
const trapPort = (trap.address() as AddressInfo).port;

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform({ EXPORT_TEMPLATE_HOSTS: ALLOWED_HOST });
const bearer = { authorization: `Bearer ${platform.tokens.sys}` };

after(async () => {
  await tally.report();
  await platform.stop();
  await new Promise((resolve) => trap.close(resolve));
});

/** A template of the platform's own file service: `${name}` and an image field `${photo}`. */
async function uploadTemplate(): Promise<string> {
  const docx = buildDocx([{ paragraph: ["${name}"] }, { paragraph: ["${photo}"] }]);
  const answer = await send(platform.url, {
    method: "PUT",
    path: "/file",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...bearer },
    body: multipartBody([{ name: "file", filename: "template.docx", data: docx }], BOUNDARY),
  });
  return `${platform.url}/file/${(JSON.parse(answer.body.toString()) as { entities: { id: string }[] }).entities[0]!.id}`;
}
const template = await uploadTemplate();

/**
 * URIs a template or an image must never be fetched from: the loopback in every spelling (the
 * trap's port), the metadata service, the database, other schemes, an allowed host hiding another,
 * and the platform's own file service walked out of or asked for a secure file.
 */
const hostileUri: fc.Arbitrary<string> = fc.oneof(
  fc
    .constantFrom(
      "127.0.0.1",
      "localhost",
      "LOCALHOST",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "0",
      "0.0.0.0",
      "%31%32%37.0.0.1",
      `${ALLOWED_HOST}@127.0.0.1`,
      `${ALLOWED_HOST}:x@127.0.0.1`,
      "127.0.0.1.",
      "localhost.",
    )
    .chain((host) =>
      fc
        .constantFrom("http", "https", "HTTP", "gopher", "dict", "ftp", "ws")
        .chain((scheme) =>
          fc.constantFrom(
            `${scheme}://${host}:${trapPort}/`,
            `${scheme}://${host}:${trapPort}/template.docx`,
            `${scheme}://${host}:${trapPort}#@${ALLOWED_HOST}/`,
            `${scheme}://${host}:${trapPort}\\@${ALLOWED_HOST}/`,
            `${scheme}://${host}:${trapPort}/_%0D%0AGET%20/%20HTTP/1.1`,
          ),
        ),
    ),
  fc.constantFrom(
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://127.0.0.1:5432/",
    "http://127.0.0.1:5672/",
    "http://10.0.0.1/",
    "http://192.168.0.1/",
    "file:///etc/passwd",
    "file:///proc/self/environ",
    "file://localhost/etc/passwd",
    "FILE:///etc/passwd",
    "data:application/octet-stream;base64,UEsDBA==",
    "javascript:alert(1)",
    "jar:http://127.0.0.1/!/",
    "ldap://127.0.0.1/",
    "//127.0.0.1/template.docx",
    "/etc/passwd",
    "../../etc/passwd",
    " http://127.0.0.1/",
    "http:/127.0.0.1/",
    "http:127.0.0.1",
    `https://${ALLOWED_HOST}.127.0.0.1.nip.invalid/`,
    `http://127.0.0.1/${"a".repeat(3000)}`,
  ),
  fc
    .constantFrom(
      "../../admin/bootstrap",
      "%2e%2e%2f%2e%2e%2fadmin%2fbootstrap",
      "..%2f..%2fbootstrap.json",
      platform.known.secureFileId,
      `${platform.known.secureFileId}/../${platform.known.secureFileId}`,
      "00000000-0000-0000-0000-000000000000",
      "%00",
      "",
    )
    .map((tail) => `${platform.url}/file/${tail}`),
);

type ExportFormat = "docx" | "xlsx" | "pdf";

/** An export request carrying `parameters` in the query string, a JSON body or a form. */
function exportRequest(
  format: string,
  parameters: Record<string, unknown>,
  carrier: "query" | "json" | "form",
  json: boolean,
) {
  const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
  const accept: Record<string, string> = json ? { accept: "application/json" } : {};
  if (carrier === "json")
    return compact({
      request: {
        method: "POST",
        path: `/export/${format}`,
        headers: { "content-type": "application/json", ...accept, ...bearer },
        body: JSON.stringify(parameters),
      },
    });
  const encoded = Object.entries(parameters)
    .map(([name, value]) => `${name}=${percentEncode(text(value))}`)
    .join("&");
  if (carrier === "form")
    return compact({
      request: {
        method: "POST",
        path: `/export/${format}`,
        headers: { "content-type": "application/x-www-form-urlencoded", ...accept, ...bearer },
        body: encoded,
      },
    });
  return compact({
    request: { method: "POST", path: `/export/${format}?${encoded}`, headers: { ...accept, ...bearer } },
  });
}

const carrier = fc.constantFrom("query" as const, "json" as const, "form" as const);

/** A hostile URI is refused (400, or 403 for a host not allowed) and the loopback never hears of it. */
function refusedUnreached(what: string) {
  return async ({ request }: { request: FuzzRequest }) => {
    const before = reached;
    const answer = await send(platform.url, request);
    checkResponse(request, answer);
    assert.equal(reached, before, "the export service connected to the internal address");
    assert.ok(answer.status === 400 || answer.status === 403, `a hostile ${what} answered ${answer.status}`);
  };
}

/** Export parameters of every shape in one of the formats: data, fields, cells, pages and flags, odd or not. */
const oddExport = (formats: readonly ExportFormat[]) =>
  fc
    .record({
      format: fc.constantFrom(...formats),
      data: fc.oneof(
        fc.dictionary(fc.oneof(fc.constantFrom("name", "photo"), nastyString), nastyJsonValue, {
          maxKeys: 4,
        }),
        fc.array(
          fc.array(fc.oneof(nastyString, fc.double(), fc.boolean(), fc.constant(null)), { maxLength: 6 }),
          { maxLength: 6 },
        ),
        nastyJsonValue,
      ),
      fields: fc.oneof(
        fc.array(
          fc.record(
            { name: nastyString, type: fc.constantFrom("image", "thing", "text", "") },
            { requiredKeys: ["name"] },
          ),
          { maxLength: 3 },
        ),
        fc.constant(Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}` }))),
        nastyJsonValue,
      ),
      row: fc.oneof(
        fc.integer({ min: -2, max: 2_000_000 }),
        fc.constantFrom(1.5, -0, 2 ** 64, "1e309", "NaN", "0x10"),
      ),
      column: fc.oneof(fc.integer({ min: -2, max: 20_000 }), fc.constantFrom(1.5, 2 ** 64, "1", "")),
      label: fc.constantFrom(true, false, "true", "yes", 1, null),
      page: fc.constantFrom(undefined, 0, 1, -1, 10_001, "1"),
      withTemplate: fc.boolean(),
      carrier,
      json: fc.boolean(),
    })
    .map(({ format, withTemplate, carrier, json, page, ...parameters }) =>
      exportRequest(
        format,
        {
          ...parameters,
          ...(page === undefined ? {} : { page }),
          ...(withTemplate || format !== "xlsx" ? { template } : {}),
        },
        carrier,
        json,
      ),
    );

describe("export templates and images fetched by URI", () => {
  it("never fetches a template from an address the operator did not allow", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "export templates",
      runs: 160,
      arbitrary: fc
        .record({
          format: fc.constantFrom("docx", "pdf", "png", "xlsx"),
          uri: hostileUri,
          carrier,
          json: fc.boolean(),
        })
        .map(({ format, uri, carrier, json }) =>
          exportRequest(
            format,
            { template: uri, data: format === "xlsx" ? [["a"]] : { name: "x" } },
            carrier,
            json,
          ),
        ),
      check: refusedUnreached("template"),
    }));

  it("never fetches an image of the data from an address the operator did not allow", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "export images",
      runs: 60,
      arbitrary: fc
        .record({ uri: hostileUri, asFile: fc.boolean(), carrier })
        .map(({ uri, asFile, carrier }) =>
          exportRequest(
            "docx",
            {
              template,
              data: { name: "x", photo: asFile ? { name: "photo.png", uri } : uri },
              fields: [{ name: "photo", type: "image" }],
            },
            carrier,
            false,
          ),
        ),
      check: refusedUnreached("image"),
    }));

  it("fills documents and spreadsheets with any data, or names the parameter it cannot use", () =>
    fillsAnyData(["docx", "docx", "xlsx", "xlsx"], 64));

  it(
    "converts to PDF any data it fills, or names the parameter it cannot use",
    {
      skip: missingSystemPackages(LIBREOFFICE, PYTHON_UNO),
    },
    () => fillsAnyData(["pdf"], 16),
  );
});

/** Exports with odd data in the formats must be made, or refused naming what is wrong: never a fault. */
async function fillsAnyData(formats: readonly ExportFormat[], runs: number): Promise<void> {
  const made = new Map<number, number>();
  await fuzzProperty({
    baseUrl: platform.url,
    tally,
    family: "export data",
    runs,
    arbitrary: fc.oneof(
      // Exports that must be made, among the odd ones, so the property reaches the rendering itself.
      {
        weight: 1,
        arbitrary: fc
          .record({ name: fc.string({ unit: "binary", maxLength: 40 }), carrier, json: fc.boolean() })
          .chain(({ name, carrier, json }) =>
            fc.constantFrom(
              ...formats.map((format) =>
                format === "xlsx"
                  ? exportRequest("xlsx", { data: [[name, 1, true, null]], label: false }, carrier, json)
                  : exportRequest(format, { template, data: { name } }, carrier, json),
              ),
            ),
          ),
      },
      { weight: 3, arbitrary: oddExport(formats) },
    ),
    check: async ({ request }) => {
      const answer = await send(platform.url, request);
      checkResponse(request, answer);
      made.set(answer.status, (made.get(answer.status) ?? 0) + 1);
    },
  });
  // The odd inputs outnumber the ordinary ones three to one, so a short run may draw none that can
  // be made: one ordinary export of each format shows the rendering is reached all the same.
  for (const format of new Set(formats)) {
    const parameters =
      format === "xlsx"
        ? { data: [["Ada", 1, true, null]], label: false }
        : { template, data: { name: "Ada" } };
    const { request } = exportRequest(format, parameters, "json", false);
    const answer = await send(platform.url, request);
    checkResponse(request, answer);
    made.set(answer.status, (made.get(answer.status) ?? 0) + 1);
    assert.equal(answer.status, 200, `an ordinary ${format} export was not made`);
  }
  assert.ok((made.get(200) ?? 0) > 0, `no export was made: ${JSON.stringify([...made])}`);
}
