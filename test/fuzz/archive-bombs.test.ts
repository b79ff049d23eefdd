import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import PizZip from "pizzip";
import { buildDocx } from "../support/docx-fixtures.ts";
import { pngDeclaring } from "../support/image-bombs.ts";
import { bombEntry, deflatedEntry, type RawEntry, storedEntry, writeZip } from "../support/zip-bombs.ts";
import { checkResponse } from "./support/envelopes.ts";
import { type FuzzPlatform, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, send } from "./support/http-client.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

/**
 * Archive bombs of random shapes as export templates: entries inflating far past their size, with
 * honest or lying headers, past the total in many entries, past the count of entries, nested in
 * one another, sharing their bytes, malformed in the ways parsers disagree about, or holding a
 * picture of more pixels than anything should decode. Each is refused with a 4xx, never a 500,
 * and the platform keeps answering.
 */

/** Templates served to the export service by id, from the one host it may fetch from. */
const served = new Map<string, Buffer>();
const host = createServer((request, response) => {
  const template = served.get(request.url!.slice(1));
  if (template) response.writeHead(200).end(template);
  else response.writeHead(404).end();
});
await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
const hostPort = (host.address() as AddressInfo).port;
const hostUrl = `http://127.0.0.1:${hostPort}`;

const tally = new FuzzTally(import.meta.filename);
let platform: FuzzPlatform;
try {
  platform = await startFuzzPlatform({ EXPORT_TEMPLATE_HOSTS: `127.0.0.1:${hostPort}` });
} catch (error) {
  host.close();
  throw error;
}
const bearer = { authorization: `Bearer ${platform.tokens.sys}` };

after(async () => {
  await tally.report();
  await platform.stop();
  host.closeAllConnections();
  await new Promise((resolve) => host.close(resolve));
});

/** The parts of a real document, or of a real workbook, that a bomb hides among. */
const CONTAINERS = {
  docx: Object.values(new PizZip(buildDocx([{ paragraph: ["${name}"] }])).files).map((file) =>
    deflatedEntry(file.name, file.asNodeBuffer()),
  ),
  xlsx: [
    deflatedEntry(
      "[Content_Types].xml",
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    ),
    deflatedEntry("xl/workbook.xml", "<workbook/>"),
  ],
};

const bombs = new Map<number, RawEntry>();
/** A bomb entry of `mebibytes`, its deflate stream built once per size. */
function bomb(name: string, mebibytes: number, declaredSize?: number): RawEntry {
  let made = bombs.get(mebibytes);
  if (!made) {
    made = bombEntry("bomb", mebibytes);
    bombs.set(mebibytes, made);
  }
  return { ...made, name, declaredSize: declaredSize ?? made.declaredSize };
}

const entryName = fc.oneof(
  fc.constantFrom(
    "word/document.xml",
    "xl/worksheets/sheet1.xml",
    "word/media/image1.png",
    "customXml/item1.xml",
  ),
  fc
    .stringMatching(/^[a-z]{1,8}(\/[a-z0-9_.-]{1,12}){0,3}$/)
    .filter((name) => !name.split("/").includes("..")),
);

/** How an entry's header states its size: truly, far too small, or anything up to the truth. */
const declared = fc.oneof(
  fc.constant("honest" as const),
  fc.integer({ min: 0, max: 4096 }),
  fc.double({ min: 0, max: 1, noNaN: true }),
);

type Shape =
  | { kind: "huge"; name: string; mebibytes: number; declared: "honest" | number }
  | { kind: "total"; count: number; declared: "honest" | number }
  | { kind: "entries"; count: number }
  | { kind: "nested"; depth: number; stored: boolean; inner: Shape }
  | { kind: "overlap"; copies: number }
  | { kind: "malformed"; flaw: Flaw; name: string }
  | { kind: "picture"; width: number; height: number; stored: boolean };

type Flaw = "encrypted" | "method" | "escape" | "zip64" | "prefix" | "truncated" | "local name" | "absolute";

const huge = fc.record({
  kind: fc.constant("huge" as const),
  name: entryName,
  mebibytes: fc.integer({ min: 2, max: 800 }),
  declared,
});
const simpleShape: fc.Arbitrary<Shape> = fc.oneof(
  { weight: 4, arbitrary: huge },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("total" as const),
      count: fc.integer({ min: 102, max: 160 }),
      declared,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("entries" as const),
      count: fc.integer({ min: 10_001, max: 20_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("overlap" as const), copies: fc.integer({ min: 1, max: 200 }) }),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        kind: fc.constant("picture" as const),
        width: fc.integer({ min: 1, max: 100_000 }),
        height: fc.integer({ min: 1, max: 100_000 }),
        stored: fc.boolean(),
      })
      .filter(({ width, height }) => width * height > 50_000_000),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("malformed" as const),
      flaw: fc.constantFrom<Flaw>(
        "encrypted",
        "method",
        "escape",
        "zip64",
        "prefix",
        "truncated",
        "local name",
        "absolute",
      ),
      name: entryName,
    }),
  },
);
const shape: fc.Arbitrary<Shape> = fc.oneof(
  { weight: 3, arbitrary: simpleShape },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("nested" as const),
      depth: fc.integer({ min: 1, max: 4 }),
      stored: fc.boolean(),
      inner: simpleShape,
    }),
  },
);

function sizeOf(choice: "honest" | number, truth: number): number | undefined {
  if (choice === "honest") return undefined;
  // A fraction is a lie anywhere between nothing and the truth; an integer a few bytes.
  return Number.isInteger(choice) ? choice : Math.floor(choice * (truth - 1));
}

/** The archive of `shape`, among `parts` (a container's), the bomb's entries first or last. */
function archiveOf(shape: Shape, parts: readonly RawEntry[] = [], bombFirst = false): Buffer {
  if (shape.kind === "malformed" && shape.flaw === "prefix") {
    // Bytes before the archive, as a self-extracting one has them.
    return writeZip([...parts, deflatedEntry(shape.name, "<w:document/>")], {
      prefix: Buffer.from("MZ\x90\x00self-extracting"),
    });
  }
  const entries = bombEntries(shape);
  const others = parts.filter((part) => !entries.some((entry) => entry.name === part.name));
  return writeZip(bombFirst ? [...entries, ...others] : [...others, ...entries]);
}

/** The entries of a bomb of `shape`. */
function bombEntries(shape: Shape): RawEntry[] {
  switch (shape.kind) {
    case "huge": {
      const entry = bomb(shape.name, shape.mebibytes);
      return [{ ...entry, declaredSize: sizeOf(shape.declared, entry.declaredSize) ?? entry.declaredSize }];
    }
    case "total":
      // Each under 1 MiB, where no ratio is asked; together past the total.
      return Array.from({ length: shape.count }, (_, i) => {
        const entry = bomb(`word/part${i}.xml`, 0.99);
        return { ...entry, declaredSize: sizeOf(shape.declared, entry.declaredSize) ?? entry.declaredSize };
      });
    case "entries":
      return Array.from({ length: shape.count }, (_, i) => storedEntry(`customXml/item${i}.xml`, ""));
    case "overlap": {
      // Central records pointing at one local header, to inflate one kernel many times.
      const kernel = bomb("word/kernel.xml", 0.5);
      const copies = Array.from({ length: shape.copies }, (_, i) => ({
        ...kernel,
        name: `word/copy${i}.xml`,
        headerAt: 0,
      }));
      return [kernel, ...copies];
    }
    case "picture": {
      // A picture declaring more pixels than allowed, for LibreOffice to decode into a PDF.
      const png = pngDeclaring(shape.width, shape.height);
      const name = "word/media/image1.png";
      return [shape.stored ? storedEntry(name, png) : deflatedEntry(name, png)];
    }
    case "malformed":
      return [malformed(shape.flaw as Exclude<Flaw, "prefix">, shape.name)];
    case "nested": {
      let archive = archiveOf(shape.inner);
      for (let level = 1; level < shape.depth; level++)
        archive = writeZip([deflatedEntry("nested.zip", archive)]);
      const name = "word/embeddings/oleObject1.zip";
      return [shape.stored ? storedEntry(name, archive) : deflatedEntry(name, archive)];
    }
  }
}

function malformed(flaw: Exclude<Flaw, "prefix">, name: string): RawEntry {
  const entry = deflatedEntry(name, "<w:document/>");
  switch (flaw) {
    case "encrypted":
      return { ...entry, flags: 0x0001 };
    case "method":
      return { ...entry, method: 12 };
    case "escape":
      return { ...entry, name: `../${name}` };
    case "absolute":
      return { ...entry, name: `/${name}` };
    case "zip64":
      return { ...entry, declaredSize: 0xffffffff };
    case "truncated":
      return { ...entry, data: entry.data.subarray(0, 3) };
    case "local name":
      return { ...entry, localName: `${name}x` };
  }
}

let nextId = 0;

describe("archive bombs as export templates", () => {
  it("refuses every bomb with a 4xx, never a 500, and keeps answering", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "export archive bombs",
      runs: 60,
      arbitrary: fc
        .record({
          shape,
          container: fc.constantFrom("docx" as const, "xlsx" as const),
          bombFirst: fc.boolean(),
          format: fc.constantFrom("docx", "docx", "xlsx", "xlsx", "pdf", "png"),
          json: fc.boolean(),
        })
        .map((input) => {
          const id = `t${nextId++}`;
          const data = input.format === "xlsx" ? [["a", 1]] : { name: "Ada" };
          return compact({
            ...input,
            id,
            request: {
              method: "POST",
              path: `/export/${input.format}`,
              headers: {
                "content-type": "application/json",
                ...(input.json ? { accept: "application/json" } : {}),
                ...bearer,
              },
              body: JSON.stringify({ template: `${hostUrl}/${id}`, data }),
            },
          });
        }),
      check: async ({ id, shape, container, bombFirst, request }) => {
        served.set(id, archiveOf(shape, CONTAINERS[container], bombFirst));
        try {
          const [answer, health] = await Promise.all([
            send(platform.url, request),
            send(platform.url, { method: "GET", path: "/healthz" }),
          ]);
          checkResponse(request, answer);
          assert.ok(
            answer.status >= 400 && answer.status < 500,
            `a bomb (${JSON.stringify(shape).slice(0, 200)}) answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`,
          );
          assert.match(JSON.parse(answer.body.toString()).error, /^template: /);
          assert.equal(health.status, 200, "/healthz did not answer during the export");
        } finally {
          served.delete(id);
        }
      },
    }));
});
