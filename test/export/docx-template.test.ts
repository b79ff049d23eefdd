import assert from "node:assert/strict";
import { describe, it } from "node:test";
import PizZip from "pizzip";
import sharp from "sharp";
import type { ExportField } from "../../contracts/export.ts";
import { fieldTypesOf, imageSourcesIn, loadImages } from "../../workers/export/docx-images.ts";
import { renderDocx } from "../../workers/export/docx-template.ts";
import { type Block, buildDocx, readDocx } from "../support/docx-fixtures.ts";

function render(blocks: Block[], data: Record<string, unknown>, fields: ExportField[] = []) {
  return readDocx(
    renderDocx({
      template: buildDocx(blocks),
      data,
      fieldTypes: fieldTypesOf(fields),
      images: new Map(),
      timeZone: "Asia/Shanghai",
    }),
  );
}

const field = (name: string, type?: string): ExportField => ({ name, type, merge: false });

describe("document templates", () => {
  it("fills ${name} and ${fieldName}, even where the word processor split the placeholder across runs", () => {
    const doc = render(
      [
        {
          paragraph: [
            "Dear ",
            "${",
            "stu",
            "dentName}",
            ", your number is ",
            { bold: "${fieldNumber" },
            "}.",
          ],
        },
        { paragraph: ["Escaped: ${note}"] },
      ],
      { studentName: "Li Wei", Number: 2024001, note: "a < b & c > d\nsecond line" },
    );
    assert.deepEqual(doc.paragraphs, [
      "Dear Li Wei, your number is 2024001.",
      "Escaped: a < b & c > d\nsecond line",
    ]);
    // The bold run keeps its formatting with the value inside it.
    assert.match(doc.xml, /<w:rPr><w:b\/><\/w:rPr><w:t xml:space="preserve">2024001<\/w:t>/);
  });

  it("shows a missing datum as nothing and leaves other braces alone", () => {
    const doc = render([{ paragraph: ["[${absent}] costs {x} and } here"] }], {});
    assert.deepEqual(doc.paragraphs, ["[] costs {x} and } here"]);
  });

  it("formats dates with ${field:pattern} in the export's time zone", () => {
    const doc = render(
      [
        {
          paragraph: [
            "${day:yyyy-MM-dd}|${when:yyyy年M月d日 HH:mm}|${when:hh:mm a}|${stamp:yyyy/MM/dd HH:mm:ss}",
          ],
        },
        { paragraph: ["${plain}|${notDate:yyyy}"] },
      ],
      {
        day: "2026-09-01",
        when: "2026-09-01T06:05:00Z",
        stamp: 1767225600,
        plain: "2026-09-01",
        notDate: "soon",
      },
    );
    // 06:05 UTC is 14:05 in Shanghai; the Unix second is 2026-01-01 00:00 UTC, 08:00 there.
    assert.deepEqual(doc.paragraphs, [
      "2026-09-01|2026年9月1日 14:05|02:05 PM|2026/01/01 08:00:00",
      "2026-09-01|soon",
    ]);
  });

  it("repeats the rows from ${groupXXX} down to the table's end for each item", () => {
    const doc = render(
      [
        {
          table: [
            [["Course"], ["Score"]],
            [["${groupCourses}", "${title}"], ["${score}"]],
            [["Teacher: ${teacher}"], ["of ${studentName}"]],
          ],
        },
      ],
      {
        studentName: "Li Wei",
        Courses: [
          { title: "Physics", score: 91, teacher: "Ada" },
          { title: "Art", score: 78, teacher: "Frida" },
        ],
      },
    );
    assert.deepEqual(doc.tables, [
      [
        ["Course", "Score"],
        ["Physics", "91"],
        ["Teacher: Ada", "of Li Wei"],
        ["Art", "78"],
        ["Teacher: Frida", "of Li Wei"],
      ],
    ]);
  });

  it("nests a group inside a group, and takes a bookmark groupXXX like the placeholder", () => {
    const doc = render(
      [
        {
          table: [
            [["Department"], ["Member"]],
            [[{ bookmark: "groupDepts" }, "${dept}"], ["(${Members.length})"]],
            [["${groupMembers}"], ["${member}"]],
          ],
        },
      ],
      {
        Depts: [
          { dept: "Physics", Members: [{ member: "Ada" }, { member: "Alan" }] },
          { dept: "Chemistry", Members: [{ member: "Marie" }] },
          { dept: "Empty", Members: [] },
        ],
      },
      [field("member"), { name: "dept", merge: false, groupName: "Depts" }],
    );
    assert.deepEqual(
      doc.tables[0]!.map((row) => row.join("|")),
      ["Department|Member", "Physics|()", "|Ada", "|Alan", "Chemistry|()", "|Marie", "Empty|()"],
    );
  });

  it("a group with no items leaves the table's head only", () => {
    const doc = render([{ table: [[["Name"]], [["${groupPeople}${name}"]]] }], { People: [] });
    assert.deepEqual(doc.tables, [[["Name"]]]);
  });

  it("shows ==${flag}== sections unless the flag is false, over paragraphs or inside one, defaulting to shown", () => {
    const blocks: Block[] = [
      { paragraph: ["Start"] },
      { paragraph: ["=", "=${scholar", "ship}=", "="] },
      { paragraph: ["Scholarship: ${amount}"] },
      { table: [[["row in the section"]]] },
      { paragraph: ["==${scholarship}=="] },
      { paragraph: ["Mark: ==${passed}==passed ==${passed}==done, ==${unset}==default shown==${unset}=="] },
    ];
    const shown = render(blocks, { scholarship: true, amount: 5000, passed: "true" });
    assert.deepEqual(shown.paragraphs, [
      "Start",
      "Scholarship: 5000",
      "[table]",
      "Mark: passed done, default shown",
    ]);
    const hidden = render(blocks, { scholarship: false, amount: 5000, passed: false });
    assert.deepEqual(hidden.paragraphs, ["Start", "Mark: done, default shown"]);
    assert.doesNotMatch(hidden.xml, /5000|row in the section/);
  });

  it("refuses a section that never closes, a package that is not a document, and tags of another syntax", () => {
    assert.throws(
      () => render([{ paragraph: ["==${open}== forever"] }], {}),
      /template: the section ==\$\{open\}== opens but never closes/,
    );
    assert.throws(
      () =>
        renderDocx({
          template: Buffer.from("plain text"),
          data: {},
          fieldTypes: new Map(),
          images: new Map(),
          timeZone: "UTC",
        }),
      /template: not a \.docx document/,
    );
    assert.throws(() => render([{ paragraph: ["${never closed"] }], {}), /template: /);
    assert.throws(
      () => render([{ paragraph: ["${#list}x${/list} ${@xml}"] }], {}),
      /template: \$\{#list\} is not a placeholder of the template syntax/,
    );
  });

  it("draws images (file objects and image-typed URLs) and things as barcodes, in groups too", async () => {
    const red = await sharp({ create: { width: 120, height: 60, channels: 3, background: "#ff0000" } })
      .jpeg()
      .toBuffer();
    const blue = await sharp({ create: { width: 40, height: 40, channels: 4, background: "#0000ff" } })
      .webp()
      .toBuffer();
    const fetched: string[] = [];
    const fields = [field("photo", "image"), field("badge", "thing"), field("logo", "image")];
    const data = {
      photo: { name: "photo.jpg", uri: "https://files.example.edu/photo" },
      logo: "https://files.example.edu/logo",
      People: [
        { badge: { id: "7f0c", code: "EQ-2024-0001", name: "Microscope" } },
        { badge: "EQ-2024-0002" },
      ],
    };
    const images = await loadImages(imageSourcesIn(data, fieldTypesOf(fields)), async (uri) => {
      fetched.push(uri);
      return uri.endsWith("photo") ? red : blue;
    });
    const bytes = renderDocx({
      template: buildDocx([
        { paragraph: ["Photo: ${photo} logo ${logo}"] },
        { table: [[["${groupPeople}${badge}"]]] },
      ]),
      data,
      fieldTypes: fieldTypesOf(fields),
      images,
      timeZone: "UTC",
    });
    assert.deepEqual(fetched.sort(), ["https://files.example.edu/logo", "https://files.example.edu/photo"]);
    const doc = readDocx(bytes);
    const zip = new PizZip(bytes);
    const media = Object.keys(zip.files).filter((name) => name.startsWith("word/media/"));
    assert.equal(media.length, 4, `two pictures and two barcodes: ${media}`);
    const rels = zip.file("word/_rels/document.xml.rels")!.asText();
    const embedded = [...doc.xml.matchAll(/r:embed="([^"]+)"/g)].map((match) => match[1]!);
    assert.equal(embedded.length, 4);
    for (const id of embedded)
      assert.match(rels, new RegExp(`Id="${id}"[^>]*Target="media/export-image-\\d\\.(png|jpeg)"`));
    assert.match(zip.file("[Content_Types].xml")!.asText(), /Extension="jpeg"/);
    // 120x60 px at 96 dpi is 1,143,000 x 571,500 EMU.
    assert.match(doc.xml, /<wp:extent cx="1143000" cy="571500"\/>/);
    const sizes = await Promise.all(
      media.map(async (name) => {
        const { width, height } = await sharp(zip.file(name)!.asNodeBuffer()).metadata();
        return `${width}x${height}`;
      }),
    );
    const barcodes = sizes.filter((size) => size !== "120x60" && size !== "40x40");
    assert.equal(barcodes.length, 2, `${sizes}`);
    for (const size of barcodes) {
      const [width, height] = size.split("x").map(Number);
      assert.ok(width! > height!, `a barcode is wider than tall: ${size}`);
    }
    const ids = [...doc.xml.matchAll(/<wp:docPr id="(\d+)"/g)].map((match) => match[1]);
    assert.equal(new Set(ids).size, ids.length, "every picture has its own id");
  });

  it("refuses more images than a document may hold, and data that is not an image", async () => {
    const many = {
      list: Array.from({ length: 101 }, (_, i) => ({ name: `${i}`, uri: `https://x.example/${i}` })),
    };
    assert.throws(() => imageSourcesIn(many, new Map()), /more than 100 distinct images/);
    await assert.rejects(
      loadImages(imageSourcesIn({ photo: "https://x.example/a" }, new Map([["photo", "image"]])), async () =>
        Buffer.from("not an image"),
      ),
      /data: https:\/\/x.example\/a is not an image/,
    );
    const twoPhotos = {
      a: { name: "a", uri: "https://x.example/a" },
      b: { name: "b", uri: "https://x.example/b" },
    };
    await assert.rejects(
      loadImages(imageSourcesIn(twoPhotos, new Map()), async () => Buffer.alloc(600), 1000),
      /data: the images of one document may not exceed 1000 bytes together/,
    );
  });
});
