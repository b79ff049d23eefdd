import { createInflate, inflateSync } from "node:zlib";
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFPageLeaf, PDFPageTree } from "pdf-lib";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

/**
 * How big a PDF the platform seals: pages, how deep its arrays and dictionaries nest, and what its
 * compressed streams (images aside, which sealing never decodes) inflate to together.
 */
export interface PdfLimits {
  maxPages: number;
  maxNesting: number;
  maxInflatedBytes: number;
}

function tooManyPages(limits: PdfLimits): PlatformError {
  return new PlatformError(
    ErrorCode.InvalidArgument,
    `file: the PDF has more than ${limits.maxPages} pages`,
    {
      field: "file",
    },
  );
}

function nestedTooDeep(limits: PdfLimits, what: string): PlatformError {
  return new PlatformError(
    ErrorCode.InvalidArgument,
    `file: the PDF nests ${what} more than ${limits.maxNesting} levels deep`,
    { field: "file" },
  );
}

const WHITESPACE = new Uint8Array(256);
for (const byte of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[byte] = 1;
/** Whitespace and the delimiters ( ) < > [ ] { } / %: what ends a token. */
const ENDS_TOKEN = new Uint8Array(WHITESPACE);
for (const byte of Buffer.from("()<>[]{}/%", "latin1")) ENDS_TOKEN[byte] = 1;

const ENDSTREAM = Buffer.from("endstream", "latin1");

/** Where a stream's data lies in the file. */
interface StreamData {
  start: number;
  end: number;
}

/**
 * Checks a PDF's structure before any parser builds its objects: its page objects, its nesting
 * (`scanPdfStructure`), then what its Flate streams inflate to. The parsers inflate object
 * streams, content streams and fonts into memory no heap limit counts, so a stream of a
 * megabyte that inflates to a gigabyte is refused here, having been inflated a chunk at a time.
 */
export async function checkPdfStructure(bytes: Uint8Array, limits: PdfLimits): Promise<void> {
  const streams = scanPdfStructure(bytes, limits);
  let inflated = 0;
  for (const { start, end } of streams) {
    inflated += await inflatedSize(bytes.subarray(start, end), limits.maxInflatedBytes - inflated);
    if (inflated > limits.maxInflatedBytes) {
      throw new PlatformError(
        ErrorCode.InvalidArgument,
        `file: the PDF's compressed streams inflate to more than ${limits.maxInflatedBytes} bytes`,
        { field: "file" },
      );
    }
  }
}

/**
 * A stream that inflates to at most this much is inflated in one call: most of a PDF's streams
 * are a few kilobytes, and a stream object of zlib's for each costs far more than inflating it.
 */
const INFLATE_AT_ONCE_BYTES = 4 * 1024 * 1024;
/** Large enough that inflating a few hundred megabytes takes a few thousand turns, not tens of thousands. */
const INFLATE_CHUNK_BYTES = 1024 * 1024;

/** What `data` inflates to, or a figure past `budget` once it passes it. */
async function inflatedSize(data: Uint8Array, budget: number): Promise<number> {
  try {
    return inflateSync(data, { maxOutputLength: Math.min(budget + 1, INFLATE_AT_ONCE_BYTES) }).length;
  } catch {
    // Larger than one call may hold, or broken: counted a chunk at a time, as far as it goes.
    return inflatedSizeInChunks(data, budget);
  }
}

/** What `data` inflates to, counted and dropped a chunk at a time, until it passes `budget`. */
function inflatedSizeInChunks(data: Uint8Array, budget: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: INFLATE_CHUNK_BYTES });
    let size = 0;
    inflate.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) {
        inflate.destroy();
        resolve(size);
      }
    });
    inflate.on("end", () => resolve(size));
    // A broken stream counts for what it gave: the parsers will make of it what they can.
    inflate.on("error", () => resolve(size));
    inflate.end(data);
  });
}

/**
 * Reads the PDF's bytes once and refuses it when its page objects outnumber the limit or its
 * arrays and dictionaries nest deeper than the limit. A document of hundreds of thousands of
 * pages is refused after its first few thousand, and one nested past any parser's stack after a
 * few dozen levels. Stream contents are skipped; answers where the data of the streams lies whose
 * first filter is Flate, images aside. What hides in compressed object streams is left to the
 * checks after parsing and the thread's limits.
 */
export function scanPdfStructure(bytes: Uint8Array, limits: PdfLimits): StreamData[] {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = data.length;
  const pageObjects = new Set<number>();
  let pagesOutsideObjects = 0;
  let depth = 0;
  /** The number of the object being read, or -1 between objects. */
  let objectNumber = -1;
  // The last two tokens as numbers (NaN when not an integer), for `12 0 obj`.
  let secondLast = Number.NaN;
  let last = Number.NaN;
  let afterType = false;
  // The stream of the object being read: its first filter, and whether it is an image.
  const flateStreams: StreamData[] = [];
  let afterFilter = false;
  let afterSubtype = false;
  let firstFilter = "";
  let image = false;
  const token = (value: number) => {
    secondLast = last;
    last = value;
  };
  let at = 0;
  while (at < end) {
    const byte = data[at]!;
    if (WHITESPACE[byte]) {
      at++;
      continue;
    }
    if (byte === 0x25 /* % */) {
      while (at < end && data[at] !== 0x0a && data[at] !== 0x0d) at++;
      continue;
    }
    if (byte === 0x28 /* ( */) {
      at = afterLiteralString(data, at);
      token(Number.NaN);
      afterType = false;
      continue;
    }
    if (byte === 0x3c /* < */ && data[at + 1] !== 0x3c) {
      const close = data.indexOf(0x3e, at + 1);
      at = close < 0 ? end : close + 1;
      token(Number.NaN);
      afterType = false;
      continue;
    }
    if (byte === 0x5b /* [ */ || byte === 0x3c /* << */) {
      if (++depth > limits.maxNesting) throw nestedTooDeep(limits, "arrays and dictionaries");
      at += byte === 0x3c ? 2 : 1;
      token(Number.NaN);
      afterType = false;
      // `/Filter [/FlateDecode …]`: the array's first name is the first filter.
      afterFilter &&= byte === 0x5b;
      continue;
    }
    if (byte === 0x5d /* ] */ || byte === 0x3e /* > */) {
      const closes = byte === 0x5d || data[at + 1] === 0x3e;
      if (closes) depth = Math.max(0, depth - 1);
      at += byte === 0x3e && closes ? 2 : 1;
      token(Number.NaN);
      afterType = false;
      continue;
    }
    if (byte === 0x2f /* / */) {
      const start = ++at;
      while (at < end && !ENDS_TOKEN[data[at]!]) at++;
      // Only short names matter here; a long one is read no further than it takes to tell.
      const name = data.toString("latin1", start, Math.min(at, start + 16));
      if (afterType && name === "Page" && at - start === 4) {
        if (objectNumber >= 0) pageObjects.add(objectNumber);
        else pagesOutsideObjects++;
        if (pageObjects.size + pagesOutsideObjects > limits.maxPages) throw tooManyPages(limits);
      }
      const whole = at - start <= 16;
      if (afterFilter) firstFilter = whole ? name : "";
      if (afterSubtype && whole && name === "Image") image = true;
      afterType = whole && name === "Type";
      afterFilter = whole && name === "Filter";
      afterSubtype = whole && name === "Subtype";
      token(Number.NaN);
      continue;
    }
    const start = at;
    while (at < end && !ENDS_TOKEN[data[at]!]) at++;
    if (at === start) {
      // A delimiter with no meaning here ({, } or a stray ")"): step over it.
      at++;
      continue;
    }
    afterType = false;
    afterFilter = false;
    afterSubtype = false;
    const word = at - start <= 9 ? data.toString("latin1", start, at) : "";
    if (word === "obj" || word === "endobj") {
      // Objects start afresh: an unbalanced one cannot carry its nesting into the next.
      depth = 0;
      objectNumber = word === "obj" && Number.isInteger(secondLast) ? secondLast : -1;
      firstFilter = "";
      image = false;
      token(Number.NaN);
    } else if (word === "stream") {
      const close = data.indexOf(ENDSTREAM, at);
      const dataStart = at + (data[at] === 0x0d && data[at + 1] === 0x0a ? 2 : 1);
      const dataEnd = close < 0 ? end : close;
      if ((firstFilter === "FlateDecode" || firstFilter === "Fl") && !image && dataStart < dataEnd) {
        flateStreams.push({ start: dataStart, end: dataEnd });
      }
      at = close < 0 ? end : close + ENDSTREAM.length;
      token(Number.NaN);
    } else {
      token(/^\d+$/.test(word) ? Number(word) : Number.NaN);
    }
  }
  return flateStreams;
}

/** Where a literal string that opens at `at` ends: parentheses balance, a backslash escapes. */
function afterLiteralString(data: Buffer, at: number): number {
  let open = 0;
  for (let i = at; i < data.length; i++) {
    const byte = data[i];
    if (byte === 0x5c /* \ */) i++;
    else if (byte === 0x28) open++;
    else if (byte === 0x29 && --open === 0) return i + 1;
  }
  return data.length;
}

/**
 * Counts the pages of a parsed document without the parser's recursion, refusing a page tree
 * deeper than the nesting limit (a tree that contains itself is infinitely deep) or with more
 * pages than the limit, however many objects it took to say so. Answers the page count.
 */
export function checkPageTree(document: PDFDocument, limits: PdfLimits): number {
  const catalog: unknown = document.catalog;
  const root = catalog instanceof PDFDict ? catalog.lookup(PDFName.of("Pages")) : undefined;
  if (!(root instanceof PDFPageTree)) throw unreadable("it has no page tree");
  let pages = 0;
  const pending: { node: PDFPageTree; depth: number }[] = [{ node: root, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.depth > limits.maxNesting) throw nestedTooDeep(limits, "its page tree");
    const kids = next.node.lookup(PDFName.of("Kids"));
    if (!(kids instanceof PDFArray)) throw unreadable("a node of its page tree lists no pages");
    for (let i = 0; i < kids.size(); i++) {
      const kid = document.context.lookup(kids.get(i));
      if (kid instanceof PDFPageTree) pending.push({ node: kid, depth: next.depth + 1 });
      else if (kid instanceof PDFPageLeaf && ++pages > limits.maxPages) throw tooManyPages(limits);
    }
  }
  if (pages === 0) throw new PlatformError(ErrorCode.Unprocessable, "the PDF has no pages");
  return pages;
}

function unreadable(why: string): PlatformError {
  return new PlatformError(ErrorCode.Unprocessable, `the PDF cannot be read: ${why}`);
}
