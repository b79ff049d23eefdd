import {
  EncryptedPDFError,
  ParseSpeeds,
  type PDFDict,
  PDFDocument,
  PDFName,
  type PDFPage,
  PDFRawStream,
  PDFSignature,
} from "pdf-lib";
import { isPlatformError } from "../../contracts/errors.ts";
import type { SignJob } from "../../contracts/signature.ts";
import type { PadesSigner } from "./pades-signature.ts";
import { type PageGeometry, pageGeometry, toUserSpace, toVisible } from "./page-geometry.ts";
import { checkPageTree, checkPdfStructure, type PdfLimits } from "./pdf-limits.ts";
import type { PreparedImage } from "./prepared-image.ts";
import { qrRectangles } from "./qr-code.ts";
import { SAVE_OPTIONS } from "./save-options.ts";
import { type Placement, placeItems, placeOnKeyword } from "./seal-placement.ts";

/** A failure of the file or of the request against it: reported to the caller, never retried. */
export class SealingError extends Error {
  override name = "SealingError";
}

export interface SealImage {
  image: PreparedImage;
  width: number;
  height: number;
}

/** A QR code without `width`/`height` is printed this size, in points (about 28 mm). */
const QR_SIZE = 80;

export interface SealedPdf {
  bytes: Uint8Array;
  pages: number;
  seals: number;
  qrCodes: number;
}

/**
 * Seals a PDF: the seal image where spec 000's rules put it (coordinates, else the keyword), the
 * QR code at its locations, and, with a signer, a PAdES signature over the result.
 */
export async function sealPdf(
  input: Uint8Array,
  seal: SealImage,
  job: Pick<
    SignJob,
    "locations" | "keyword" | "keywordOrder" | "keywordSeq" | "qrCodeLocations" | "qrContent"
  >,
  options: { sign?: PadesSigner | undefined; limits: PdfLimits },
): Promise<SealedPdf> {
  const document = await loadPdf(input, options.limits);
  const pages = document.getPages();
  const geometries = pages.map(pageGeometry);
  const size = { width: seal.width, height: seal.height };
  let seals: Placement[];
  if (job.locations && job.locations.length > 0) {
    // Rule 1: coordinates win over the keyword.
    seals = placeItems(job.locations, geometries, size);
  } else if (job.keyword) {
    const matches = (await readKeyword(input, job.keyword)).map((match) => {
      const visible = toVisible(geometries[match.pageIndex]!, match.x, match.y);
      return { pageIndex: match.pageIndex, centreX: visible.x, centreY: visible.y };
    });
    seals = placeOnKeyword(matches, job.keyword, job.keywordOrder, job.keywordSeq, size);
  } else {
    seals = [];
  }
  const qrCodes =
    job.qrCodeLocations && job.qrCodeLocations.length > 0 && job.qrContent
      ? placeItems(job.qrCodeLocations, geometries, { width: QR_SIZE, height: QR_SIZE }, { sizedItems: true })
      : [];
  // Each page's marks, drawn after its own content in one stream.
  const marks = new Map<number, string>();
  const draw = (placement: Placement, content: string) => {
    const frame = frameAt(geometries[placement.pageIndex]!, placement, content);
    marks.set(placement.pageIndex, (marks.get(placement.pageIndex) ?? "") + frame);
  };
  if (seals.length > 0) {
    const image = seal.image.addTo(document);
    for (const placement of seals) {
      const name = pages[placement.pageIndex]!.node.newXObject("Seal", image);
      draw(placement, imageContent(name, placement));
    }
  }
  if (qrCodes.length > 0) {
    const modules = qrRectangles(job.qrContent!);
    for (const placement of qrCodes) draw(placement, qrContent(modules, placement));
  }
  for (const [pageIndex, content] of marks) appendAfterContent(pages[pageIndex]!, content);
  const { sign } = options;
  const bytes = sign ? await sign(document, "sealed by the platform") : await document.save(SAVE_OPTIONS);
  return { bytes, pages: pages.length, seals: seals.length, qrCodes: qrCodes.length };
}

/** The limits' refusals and a stack the document ran out: not a document that cannot be read. */
function isExhaustion(error: unknown): boolean {
  return (
    isPlatformError(error) ||
    error instanceof RangeError ||
    (error instanceof Error && error.message.includes("Maximum call stack size exceeded"))
  );
}

async function readKeyword(input: Uint8Array, keyword: string) {
  // pdf.js takes longer to load than the rest of sealing: loaded for the first keyword only.
  const { findKeyword } = await import("./keyword-search.ts");
  try {
    return await findKeyword(input, keyword);
  } catch (error) {
    if (isExhaustion(error)) throw error;
    throw new SealingError(`the PDF's text cannot be read: ${(error as Error).message}`);
  }
}

async function loadPdf(input: Uint8Array, limits: PdfLimits): Promise<PDFDocument> {
  const head = Buffer.from(input.buffer, input.byteOffset, Math.min(input.byteLength, 1024)).toString(
    "latin1",
  );
  if (!head.includes("%PDF-")) throw new SealingError("the file is not a PDF");
  await checkPdfStructure(input, limits);
  let document: PDFDocument;
  try {
    // Parsed in one go: pdf-lib otherwise pauses on a timer every hundred objects, which costs a
    // small document more time than the parsing itself. A sign worker has nothing else to serve.
    document = await PDFDocument.load(input, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  } catch (error) {
    if (error instanceof EncryptedPDFError)
      throw new SealingError("the PDF is encrypted; seal an unencrypted file");
    if (isExhaustion(error)) throw error;
    throw new SealingError(`the PDF cannot be read: ${(error as Error).message}`);
  }
  // Before anything walks the page tree with recursion, or makes an object for each page.
  checkPageTree(document, limits);
  // Only a document with a form can carry a signature; asking pdf-lib for the form of one
  // without would add an empty form to it.
  const hasForm = document.catalog.has(PDFName.of("AcroForm"));
  const signed =
    hasForm &&
    document
      .getForm()
      .getFields()
      .some((field) => field instanceof PDFSignature && field.acroField.dict.has(PDFName.of("V")));
  if (signed) {
    // Rewriting the file would break the signature it carries; the README says so.
    throw new SealingError("the PDF already carries a digital signature; seal the file before it is signed");
  }
  return document;
}

/**
 * Wraps the page's own content in q…Q, so a transformation it leaves behind cannot move the marks,
 * and appends the marks. The marks are written as content-stream text directly and left
 * uncompressed: they are small, and building and compressing operator objects would cost more
 * than the rest of the sealing.
 */
function appendAfterContent(page: PDFPage, content: string): void {
  page.node.normalize();
  const context = page.doc.context;
  const stream = (text: string) =>
    context.register(PDFRawStream.of(context.obj({}) as PDFDict, Buffer.from(text, "latin1")));
  page.node.wrapContentStreams(stream("q\n"), stream("Q\n"));
  page.node.addContentStream(stream(content));
}

/** Numbers as content streams write them: at most three decimals, never an exponent. */
function num(n: number): string {
  const rounded = Math.round(n * 1000) / 1000;
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

/** A mark in a frame whose origin is its visible lower-left corner, upright for the reader. */
function frameAt(geometry: PageGeometry, placement: Placement, content: string): string {
  const anchor = toUserSpace(geometry, placement.x, placement.y);
  const radians = (geometry.rotation * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians));
  const sin = Math.round(Math.sin(radians));
  return `q\n${num(cos)} ${num(sin)} ${num(-sin)} ${num(cos)} ${num(anchor.x)} ${num(anchor.y)} cm\n${content}Q\n`;
}

function imageContent(name: PDFName, placement: Placement): string {
  return `${num(placement.width)} 0 0 ${num(placement.height)} 0 0 cm\n${name.asString()} Do\n`;
}

/** A white square with the dark modules on it, as vector rectangles: sharp at any zoom. */
function qrContent(modules: ReturnType<typeof qrRectangles>, placement: Placement): string {
  const { width, height } = placement;
  const dark = modules
    .map(
      (m) =>
        `${num(m.x * width)} ${num(m.y * height)} ${num(m.width * width)} ${num(m.height * height)} re\n`,
    )
    .join("");
  return `1 g\n0 0 ${num(width)} ${num(height)} re\nf\n0 g\n${dark}f\n`;
}
