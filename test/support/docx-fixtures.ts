import PizZip from "pizzip";

/**
 * Word-processing documents built in tests: paragraphs and tables of runs, where a placeholder
 * can be split across runs the way word processors split them (`["${na", "me}"]`).
 */
export type Run = string | { bold: string } | { bookmark: string };
export type Block = { paragraph: Run[] } | { table: Run[][][] };

const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

function runXml(run: Run, id: number): string {
  if (typeof run === "string") return `<w:r><w:t xml:space="preserve">${escapeXml(run)}</w:t></w:r>`;
  if ("bold" in run)
    return `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${escapeXml(run.bold)}</w:t></w:r>`;
  return `<w:bookmarkStart w:id="${id}" w:name="${run.bookmark}"/><w:bookmarkEnd w:id="${id}"/>`;
}

let bookmarkIds = 0;
const paragraphXml = (runs: Run[]) => `<w:p>${runs.map((run) => runXml(run, bookmarkIds++)).join("")}</w:p>`;

function blockXml(block: Block): string {
  if ("paragraph" in block) return paragraphXml(block.paragraph);
  const rows = block.table
    .map(
      (cells) =>
        `<w:tr>${cells.map((runs) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${paragraphXml(runs)}</w:tc>`).join("")}</w:tr>`,
    )
    .join("");
  return `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/><w:tblBorders><w:insideH w:val="single" w:sz="4"/></w:tblBorders></w:tblPr>${rows}</w:tbl>`;
}

export function buildDocx(blocks: Block[]): Buffer {
  const zip = new PizZip();
  zip.file(
    "[Content_Types].xml",
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    "_rels/.rels",
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    "word/_rels/document.xml.rels",
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>',
  );
  zip.file(
    "word/document.xml",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>${blocks.map(blockXml).join("")}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440"/></w:sectPr></w:body></w:document>`,
  );
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** The parts of a rendered document needed to check it. */
export function readDocx(bytes: Buffer) {
  const zip = new PizZip(bytes);
  const xml = zip.file("word/document.xml")!.asText();
  const textOf = (fragment: string) =>
    [...fragment.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:br\/>/g)]
      .map((match) => (match[0] === "<w:br/>" ? "\n" : match[1]!))
      .join("")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  const body = xml.replace(/<w:tbl>[\s\S]*?<\/w:tbl>/g, "<w:p><w:t>[table]</w:t></w:p>");
  return {
    xml,
    zip,
    /** Text of each body paragraph, tables shown as `[table]`. */
    paragraphs: [...body.matchAll(/<w:p>([\s\S]*?)<\/w:p>/g)].map((match) => textOf(match[1]!)),
    /** Each table as rows of cell texts. */
    tables: [...xml.matchAll(/<w:tbl>([\s\S]*?)<\/w:tbl>/g)].map((table) =>
      [...table[1]!.matchAll(/<w:tr>([\s\S]*?)<\/w:tr>/g)].map((row) =>
        [...row[1]!.matchAll(/<w:tc>([\s\S]*?)<\/w:tc>/g)].map((cell) => textOf(cell[1]!)),
      ),
    ),
  };
}
