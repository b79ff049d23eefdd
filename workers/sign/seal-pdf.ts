import {
  concatTransformationMatrix,
  drawObject,
  EncryptedPDFError,
  fill,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  type PDFPage,
  PDFSignature,
  popGraphicsState,
  pushGraphicsState,
  setFillingGrayscaleColor,
} from "pdf-lib";
import type { SignJob } from "../../contracts/signature.ts";
import { findKeyword } from "./keyword-search.ts";
import type { PadesSigner } from "./pades-signature.ts";
import { type PageGeometry, pageGeometry, toUserSpace, toVisible } from "./page-geometry.ts";
import { qrRectangles } from "./qr-code.ts";
import { type Placement, placeItems, placeOnKeyword } from "./seal-placement.ts";

/** A failure of the file or of the request against it: reported to the caller, never retried. */
export class SealingError extends Error {
  override name = "SealingError";
}

export interface SealImage {
  png: Uint8Array;
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
  sign?: PadesSigner,
): Promise<SealedPdf> {
  const document = await loadPdf(input);
  const pages = document.getPages();
  const geometries = pages.map(pageGeometry);
  const size = { width: seal.width, height: seal.height };
  let seals: Placement[];
  if (job.locations && job.locations.length > 0) {
    // Rule 1: coordinates win over the keyword.
    seals = placeItems(job.locations, geometries, size);
  } else if (job.keyword) {
    const matches = (await findKeyword(input, job.keyword)).map((match) => {
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
  const wrapped = new Set<PDFPage>();
  const onPage = (placement: Placement) => {
    const page = pages[placement.pageIndex]!;
    if (!wrapped.has(page)) {
      isolateExistingContent(page);
      wrapped.add(page);
    }
    return page;
  };
  if (seals.length > 0) {
    const image = await document.embedPng(seal.png);
    for (const placement of seals) {
      const page = onPage(placement);
      const name = page.node.newXObject("Seal", image.ref);
      drawAt(page, geometries[placement.pageIndex]!, placement, imageOperators(name, placement));
    }
  }
  if (qrCodes.length > 0) {
    const modules = qrRectangles(job.qrContent!);
    for (const placement of qrCodes) {
      drawAt(onPage(placement), geometries[placement.pageIndex]!, placement, qrOperators(modules, placement));
    }
  }
  const bytes = sign
    ? await sign(document, "sealed by the platform")
    : await document.save({ useObjectStreams: false, updateFieldAppearances: false });
  return { bytes, pages: pages.length, seals: seals.length, qrCodes: qrCodes.length };
}

async function loadPdf(input: Uint8Array): Promise<PDFDocument> {
  const head = Buffer.from(input.buffer, input.byteOffset, Math.min(input.byteLength, 1024)).toString(
    "latin1",
  );
  if (!head.includes("%PDF-")) throw new SealingError("the file is not a PDF");
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(input, { updateMetadata: false });
  } catch (error) {
    if (error instanceof EncryptedPDFError)
      throw new SealingError("the PDF is encrypted; seal an unencrypted file");
    throw new SealingError(`the PDF cannot be read: ${(error as Error).message}`);
  }
  const signed = document
    .getForm()
    .getFields()
    .some((field) => field instanceof PDFSignature && field.acroField.dict.has(PDFName.of("V")));
  if (signed) {
    // Rewriting the file would break the signature it carries; the README says so.
    throw new SealingError("the PDF already carries a digital signature; seal the file before it is signed");
  }
  return document;
}

/** Wraps the page's own content in q…Q, so a transformation it leaves behind cannot move the seal. */
function isolateExistingContent(page: PDFPage): void {
  page.node.normalize();
  const context = page.doc.context;
  const start = context.register(context.contentStream([pushGraphicsState()]));
  const end = context.register(context.contentStream([popGraphicsState()]));
  page.node.wrapContentStreams(start, end);
}

/** Draws in a frame whose origin is the mark's visible lower-left corner, upright for the reader. */
function drawAt(page: PDFPage, geometry: PageGeometry, placement: Placement, operators: PDFOperator[]): void {
  const anchor = toUserSpace(geometry, placement.x, placement.y);
  const radians = (geometry.rotation * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians));
  const sin = Math.round(Math.sin(radians));
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(cos, sin, -sin, cos, anchor.x, anchor.y),
    ...operators,
    popGraphicsState(),
  );
}

function imageOperators(name: PDFName, placement: Placement): PDFOperator[] {
  return [concatTransformationMatrix(placement.width, 0, 0, placement.height, 0, 0), drawObject(name)];
}

function rectangle(x: number, y: number, width: number, height: number): PDFOperator {
  return PDFOperator.of(
    PDFOperatorNames.AppendRectangle,
    [x, y, width, height].map((n) => PDFNumber.of(round(n))),
  );
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** A white square with the dark modules on it, as vector rectangles: sharp at any zoom. */
function qrOperators(modules: ReturnType<typeof qrRectangles>, placement: Placement): PDFOperator[] {
  const { width, height } = placement;
  return [
    setFillingGrayscaleColor(1),
    rectangle(0, 0, width, height),
    fill(),
    setFillingGrayscaleColor(0),
    ...modules.map((m) => rectangle(m.x * width, m.y * height, m.width * width, m.height * height)),
    fill(),
  ];
}
