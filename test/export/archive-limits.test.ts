import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import ExcelJS from "exceljs";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { type ArchiveLimits, checkArchive } from "../../workers/export/archive-limits.ts";
import { buildDocx } from "../support/docx-fixtures.ts";
import {
  bombEntry,
  deflatedEntry,
  documentEntries,
  docxWith,
  type RawEntry,
  storedEntry,
  writeZip,
} from "../support/zip-bombs.ts";

const MiB = 1024 * 1024;
const LIMITS: ArchiveLimits = { maxBytes: 100 * MiB, maxRatio: 100, maxEntries: 10_000 };

/** The refusal of `zip`: a 400 (INVALID_ARGUMENT) whose message is returned. */
async function refusal(zip: Buffer, limits = LIMITS): Promise<string> {
  try {
    await checkArchive(zip, limits);
  } catch (error) {
    assert.ok(error instanceof PlatformError, String(error));
    assert.equal(error.code, ErrorCode.InvalidArgument);
    assert.match(error.message, /^template: /);
    return error.message;
  }
  assert.fail("the archive was accepted");
}

const body = (text = "<w:document/>") => deflatedEntry("word/document.xml", text);

async function workbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet("Data").getCell("A1").value = "chart data";
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe("archive limits", () => {
  it("accepts documents and workbooks as word processors and exceljs write them, an embedded workbook too", async () => {
    await checkArchive(buildDocx([{ paragraph: ["Dear ${name}"] }]), LIMITS);
    await checkArchive(await workbook(), LIMITS);
    await checkArchive(
      docxWith(body(), [deflatedEntry("word/embeddings/Microsoft_Excel_Worksheet.xlsx", await workbook())]),
      LIMITS,
    );
    // Small entries compress as well as they like: an empty page's 1 MiB of spaces is no bomb.
    await checkArchive(docxWith(bombEntry("word/document.xml", 0.99)), LIMITS);
  });

  it("refuses the 400 MiB document.xml of a 400 KB template at once, from its declared size", async () => {
    const bomb = docxWith(bombEntry("word/document.xml", 400));
    assert.ok(bomb.length < 450_000, `${bomb.length} bytes`);
    const started = performance.now();
    const message = await refusal(bomb);
    assert.match(message, /"word\/document\.xml" inflates to more than 100 times its compressed size/);
    assert.match(message, /EXPORT_ARCHIVE_MAX_RATIO/);
    assert.ok(performance.now() - started < 1000);
  });

  it("counts the bytes an entry really inflates to, stopping where its header lied", async () => {
    const rssBefore = process.memoryUsage().rss;
    const small = await refusal(docxWith(bombEntry("word/document.xml", 400, 5000)));
    assert.match(small, /"word\/document\.xml" inflates past the 5000 bytes its header declares/);
    // Declared just within the ratio, it is inflated that far and no further.
    const within = 30 * MiB;
    const large = await refusal(docxWith(bombEntry("word/document.xml", 400, within)));
    assert.match(large, new RegExp(`inflates past the ${within} bytes its header declares`));
    assert.ok(process.memoryUsage().rss - rssBefore < 100 * MiB, "the inflated bytes were not kept");
    const short = bombEntry("word/document.xml", 0.5);
    assert.match(
      await refusal(docxWith({ ...short, declaredSize: short.declaredSize + 1 })),
      /inflates to \d+ bytes, not the \d+ its header declares/,
    );
  });

  it("refuses past the ratio only above 1 MiB, and past the total of all entries together", async () => {
    assert.match(
      await refusal(docxWith(bombEntry("word/document.xml", 2))),
      /"word\/document\.xml" inflates to more than 100 times/,
    );
    // Incompressible parts: no ratio to speak of, but 3 MiB together where 2 MiB are allowed.
    const parts = [0, 1, 2].map((i) => storedEntry(`word/media/noise${i}.bin`, randomBytes(MiB)));
    const message = await refusal(docxWith(body(), parts), { ...LIMITS, maxBytes: 2 * MiB });
    assert.match(message, /"word\/media\/noise1\.bin" takes the archive past 2097152 inflated bytes/);
    assert.match(message, /EXPORT_ARCHIVE_MAX_BYTES/);
    assert.match(
      await refusal(docxWith(bombEntry("word/document.xml", 400)), { ...LIMITS, maxRatio: 1100 }),
      /takes the archive past 104857600 inflated bytes/,
    );
  });

  it("refuses more entries than the limit, counting those of archives inside", async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => storedEntry(`customXml/item${i}.xml`, "<a/>"));
    assert.match(await refusal(writeZip(many)), /more than 10000 entries \(EXPORT_ARCHIVE_MAX_ENTRIES\)/);
    const inner = writeZip(many.slice(0, 6_000));
    const outer = docxWith(body(), [
      ...many.slice(0, 5_000),
      storedEntry("word/embeddings/inner.zip", inner),
    ]);
    assert.match(await refusal(outer), /more than 10000 entries/);
  });

  it("inflates archives inside the template against the same limits, and refuses them nested too deep", async () => {
    const bombBook = writeZip([...documentEntries(), bombEntry("xl/worksheets/sheet1.xml", 400, 5000)]);
    const message = await refusal(docxWith(body(), [deflatedEntry("word/embeddings/book.xlsx", bombBook)]));
    assert.match(
      message,
      /"word\/embeddings\/book\.xlsx!\/xl\/worksheets\/sheet1\.xml" inflates past the 5000 bytes/,
    );
    const level2 = writeZip([deflatedEntry("inner.zip", writeZip([deflatedEntry("a.txt", "a")]))]);
    await checkArchive(docxWith(body(), [deflatedEntry("word/embeddings/outer.zip", level2)]), LIMITS);
    const level3 = writeZip([deflatedEntry("deeper.zip", level2)]);
    assert.match(
      await refusal(docxWith(body(), [deflatedEntry("word/embeddings/outer.zip", level3)])),
      /"word\/embeddings\/outer\.zip!\/deeper\.zip!\/inner\.zip" is an archive nested more than 2 levels deep/,
    );
    // Starting like one but without an end record, no parser reads it as an archive.
    await checkArchive(
      docxWith(body(), [storedEntry("word/embeddings/broken.zip", Buffer.from("PK\x03\x04..."))]),
      LIMITS,
    );
    const unreadable = writeZip([bombEntry("payload.xml", 400, 5000)]).subarray(0, -22);
    await checkArchive(docxWith(body(), [deflatedEntry("word/embeddings/cut.zip", unreadable)]), LIMITS);
    // Read from its end record, a zip is one whatever comes before it.
    const selfExtracting = writeZip([bombEntry("payload.xml", 400, 5000)], {
      prefix: Buffer.from("MZ\x90\x00"),
    });
    assert.match(
      await refusal(docxWith(body(), [deflatedEntry("word/embeddings/oleObject1.bin", selfExtracting)])),
      /the archive "word\/embeddings\/oleObject1\.bin" inside it: its central directory is not where/,
    );
    const mentionsTheSignature = Buffer.concat([
      randomBytes(1000),
      Buffer.from("PK\x05\x06"),
      Buffer.alloc(30),
    ]);
    await checkArchive(
      docxWith(body(), [storedEntry("word/media/image1.png", mentionsTheSignature)]),
      LIMITS,
    );
  });

  it("refuses entries that share their compressed bytes, inflating one kernel many times", async () => {
    // One entry's stored bytes hold another entry whole, local header included.
    const inner = deflatedEntry("word/document.xml", " ".repeat(100_000));
    const innerRecord = writeZip([inner]).subarray(0, 30 + inner.name.length + inner.data.length);
    const outer = storedEntry("word/a.bin", innerRecord);
    const quoted = writeZip([...documentEntries().slice(0, 2), outer, { ...inner, headerAt: 0 }]);
    const at = quoted.indexOf(innerRecord);
    assert.match(
      await refusal(writeZip([...documentEntries().slice(0, 2), outer, { ...inner, headerAt: at }])),
      /the entries "word\/a\.bin" and "word\/document\.xml" overlap/,
    );
    // Many central records pointing at one local header.
    const kernel = bombEntry("word/document.xml", 0.9);
    const copies = Array.from({ length: 5 }, (_, i) => ({
      ...kernel,
      name: `word/copy${i}.xml`,
      headerAt: 0,
    }));
    assert.match(await refusal(writeZip([kernel, ...copies])), /overlap|disagrees/);
  });

  it("refuses encrypted entries, methods other than stored and deflated, and names leaving the package", async () => {
    const cases: [RawEntry, RegExp][] = [
      [{ ...body(), flags: 0x0001 }, /"word\/document\.xml" is encrypted/],
      [{ ...body(), method: 12 }, /"word\/document\.xml" is compressed by method 12/],
      [
        { ...body(), name: "../../etc/cron.d/x" },
        /"\.\.\/\.\.\/etc\/cron\.d\/x" has a name that leaves the package/,
      ],
      [{ ...body(), name: "word\\..\\..\\x" }, /leaves the package/],
      [{ ...body(), name: "/etc/passwd" }, /"\/etc\/passwd" has an absolute path/],
      [{ ...body(), name: "C:/x.xml" }, /has an absolute path/],
      [{ ...body(), name: "word/a\0.xml" }, /has a NUL in its name/],
    ];
    for (const [entry, expected] of cases) assert.match(await refusal(docxWith(entry)), expected);
  });

  it("refuses headers that disagree, ZIP64 records, bytes before the archive and broken deflate streams", async () => {
    const docx = buildDocx([{ paragraph: ["x"] }]);
    const cases: [Buffer, RegExp][] = [
      [docxWith({ ...body(), localName: "word/other.xml" }), /local header that disagrees/],
      [docxWith({ ...body(), localMethod: 0 }), /local header that disagrees/],
      [docxWith({ ...body(), declaredSize: 0xffffffff }), /ZIP64/],
      [writeZip([body()], { endRecord: { count: 0xffff } }), /ZIP64 archives are not accepted/],
      [writeZip([body()], { endRecord: { directoryStart: 0xffffffff } }), /ZIP64/],
      [writeZip([body()], { prefix: Buffer.from("#!/bin/sh\n") }), /central directory is not where/],
      [writeZip([body()], { endRecord: { count: 2 } }), /ends before its entry 2 of 2/],
      [docxWith({ ...body(), data: body().data.subarray(0, 4) }), /does not inflate/],
      [docxWith({ ...storedEntry("word/document.xml", "abc"), declaredSize: 4 }), /stored, yet/],
    ];
    for (const [zip, expected] of cases) assert.match(await refusal(zip), expected);
    // What no parser can open (no end record) is left for the parser to refuse; bytes after the end record change nothing.
    for (const bytes of [Buffer.from("%PDF-1.7 not a zip"), Buffer.alloc(0), docx.subarray(0, -22)])
      await checkArchive(bytes, LIMITS);
    await checkArchive(Buffer.concat([docx, Buffer.from("trailing")]), LIMITS);
  });

  it("inflates on zlib's thread pool: the event loop keeps turning while a large entry is counted", async () => {
    const large = docxWith(bombEntry("word/document.xml", 90));
    let turns = 0;
    let turning = true;
    const turn = () => {
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    try {
      await checkArchive(large, { ...LIMITS, maxRatio: 1100 });
    } finally {
      turning = false;
    }
    assert.ok(turns > 20, `the loop turned ${turns} times`);
  });
});
