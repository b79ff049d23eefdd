import { deflateSync } from "node:zlib";

/**
 * Hostile PDFs written byte by byte, cheaply: a document of 200,000 pages is a few string joins
 * here, where building it with pdf-lib would take longer than the sealing under test.
 */

export type XrefShape = "valid" | "missing" | "broken";

/**
 * A PDF of the given object bodies, numbered from 1 in order; object 1 is the catalog unless the
 * trailer names another. The cross-reference table is right, absent, or points at wrong offsets.
 */
export function rawPdf(bodies: readonly string[], options: { xref?: XrefShape; root?: number } = {}): Buffer {
  const xref = options.xref ?? "valid";
  const parts: string[] = ["%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n"];
  let offset = Buffer.byteLength(parts[0]!, "latin1");
  const offsets: number[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const object = `${i + 1} 0 obj\n${bodies[i]}\nendobj\n`;
    offsets.push(offset);
    parts.push(object);
    offset += Buffer.byteLength(object, "latin1");
  }
  const trailer = `trailer\n<< /Size ${bodies.length + 1} /Root ${options.root ?? 1} 0 R >>\n`;
  if (xref === "missing") {
    parts.push(trailer, "%%EOF\n");
  } else {
    const rows = offsets.map((at, i) => {
      const written = xref === "broken" ? (at * 7 + i * 13) % (offset + 1000) : at;
      return `${String(written).padStart(10, "0")} 00000 n \n`;
    });
    parts.push(`xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`, rows.join(""), trailer);
    parts.push(`startxref\n${xref === "broken" ? offset + 12_345 : offset}\n%%EOF\n`);
  }
  return Buffer.from(parts.join(""), "latin1");
}

export interface ManyPagesOptions {
  /** Kids per node of the page tree; `pages` or more gives one flat list under the root. */
  fanOut?: number;
  /** Every leaf is one and the same page object, named again and again. */
  sharedPage?: boolean;
  /** The page count the tree's nodes claim; the truth by default. */
  claimedCount?: number;
  xref?: XrefShape;
}

/** An A4 document of `pages` empty pages under a page tree of the given shape. */
export function manyPagesPdf(pages: number, options: ManyPagesOptions = {}): Buffer {
  const fanOut = Math.max(2, options.fanOut ?? 100);
  // Object 1 is the catalog, 2 the root of the page tree; the rest follow as they are made.
  const bodies: string[] = ["<< /Type /Catalog /Pages 2 0 R >>", ""];
  const add = (body: string) => bodies.push(body);
  let level: number[] = [];
  if (options.sharedPage) {
    add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>");
    level = Array.from({ length: pages }, () => bodies.length);
  } else {
    // Leaves first, their parent filled in once the next level is numbered.
    for (let i = 0; i < pages; i++) {
      add("");
      level.push(bodies.length);
    }
  }
  const parentOf = new Map<number, number>();
  const counts = new Map<number, number>(level.map((n) => [n, 1]));
  while (level.length > fanOut) {
    const next: number[] = [];
    for (let i = 0; i < level.length; i += fanOut) {
      const kids = level.slice(i, i + fanOut);
      add("");
      const node = bodies.length;
      for (const kid of kids) parentOf.set(kid, node);
      counts.set(
        node,
        kids.reduce((sum, kid) => sum + counts.get(kid)!, 0),
      );
      bodies[node - 1] =
        `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(" ")}] /Count ${options.claimedCount ?? counts.get(node)} >>`;
      next.push(node);
    }
    level = next;
  }
  for (const node of level) parentOf.set(node, 2);
  bodies[1] = `<< /Type /Pages /Kids [${level.map((kid) => `${kid} 0 R`).join(" ")}] /Count ${options.claimedCount ?? pages} >>`;
  if (!options.sharedPage) {
    for (let n = 3; n < 3 + pages; n++) {
      bodies[n - 1] = `<< /Type /Page /Parent ${parentOf.get(n)} 0 R /MediaBox [0 0 595 842] >>`;
    }
  }
  for (const [node, parent] of parentOf) {
    if (bodies[node - 1]!.startsWith("<< /Type /Pages")) {
      bodies[node - 1] = bodies[node - 1]!.replace("/Type /Pages", `/Type /Pages /Parent ${parent} 0 R`);
    }
  }
  return rawPdf(bodies, { xref: options.xref });
}

export type NestingPlace = "page" | "catalog" | "trailer-free object" | "content";

/**
 * A one-page document holding an array nested `depth` deep: in the page's dictionary, the
 * catalog's, an object nothing refers to, or the page's content stream.
 */
export function nestedArraysPdf(
  depth: number,
  options: { place?: NestingPlace; xref?: XrefShape; dictionaries?: boolean } = {},
): Buffer {
  const place = options.place ?? "page";
  const nested = options.dictionaries
    ? `${"<< /A ".repeat(depth)}1${" >>".repeat(depth)}`
    : `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const content = place === "content" ? `BT /F1 12 Tf ${nested} TJ ET` : "BT ET";
  return rawPdf(
    [
      `<< /Type /Catalog /Pages 2 0 R${place === "catalog" ? ` /Deep ${nested}` : ""} >>`,
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R${place === "page" ? ` /Deep ${nested}` : ""} >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      place === "trailer-free object" ? nested : "null",
    ],
    { xref: options.xref },
  );
}

export type PageTreeShape = "chain" | "cycle" | "doubling";

/**
 * A page tree that is hostile in its shape: a chain of `depth` nodes with one page at its end, a
 * node that lists its own parent among its kids, or `depth` levels that each name the next twice
 * (2^depth pages from `depth` objects).
 */
export function pageTreePdf(shape: PageTreeShape, depth: number, options: { xref?: XrefShape } = {}): Buffer {
  const levels = shape === "cycle" ? 1 : depth;
  // 1 the catalog, 2 … levels + 1 the tree's nodes, then the page.
  const page = levels + 2;
  const bodies = ["<< /Type /Catalog /Pages 2 0 R >>"];
  for (let node = 2; node <= levels + 1; node++) {
    const parent = node === 2 ? "" : ` /Parent ${node - 1} 0 R`;
    const next = node === levels + 1 ? page : node + 1;
    const kids =
      shape === "cycle"
        ? `${page} 0 R 2 0 R`
        : shape === "doubling"
          ? `${next} 0 R ${next} 0 R`
          : `${next} 0 R`;
    bodies.push(`<< /Type /Pages${parent} /Kids [${kids}] /Count 1 >>`);
  }
  bodies.push(`<< /Type /Page /Parent ${levels + 1} 0 R /MediaBox [0 0 595 842] >>`);
  return rawPdf(bodies, { xref: options.xref });
}

export type FlatePlace = "object stream" | "content" | "unused";
export type FlateFilter = "FlateDecode" | "Fl" | "[/FlateDecode]";

/**
 * A one-page document with a Flate stream that inflates to `inflatedBytes` of spaces from a
 * thousandth of that: an object stream the parser must inflate, the page's content, or a stream
 * nothing uses.
 */
export function flateBombPdf(
  inflatedBytes: number,
  options: { place?: FlatePlace; filter?: FlateFilter; xref?: XrefShape } = {},
): Buffer {
  const place = options.place ?? "object stream";
  const compressed = deflateSync(Buffer.alloc(inflatedBytes, 0x20), { level: 9 }).toString("latin1");
  const filter =
    options.filter === "[/FlateDecode]" ? "[/FlateDecode]" : `/${options.filter ?? "FlateDecode"}`;
  const kind = place === "object stream" ? "/Type /ObjStm /N 1 /First 4 " : "";
  const stream = `<< ${kind}/Length ${compressed.length} /Filter ${filter} >>\nstream\n${compressed}\nendstream`;
  return rawPdf(
    [
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]${place === "content" ? " /Contents 4 0 R" : ""} >>`,
      stream,
    ],
    { xref: options.xref },
  );
}
