import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { SignJob } from "../../contracts/signature.ts";
import { createPadesSigner, type PadesSigner } from "./pades-signature.ts";
import type { PdfLimits } from "./pdf-limits.ts";
import { PreparedImage } from "./prepared-image.ts";
import { type SealedPdf, SealingError, sealPdf } from "./seal-pdf.ts";
import { PlacementError } from "./seal-placement.ts";
import type { SigningCertificate } from "./signing-certificate.ts";

/**
 * Sealing as a document thread runs it (see ../document-thread.ts): the PDF's bytes and the seal's
 * image in, the sealed bytes out. The caller reads and writes storage and the database.
 */

export interface SealSetup {
  /** Absent when SIGN_SIGNATURE=none: the seal image only. */
  certificate: SigningCertificate | undefined;
  limits: PdfLimits;
}

export interface SealWork {
  pdf: Uint8Array;
  seal: { id: string; version: number; png: Uint8Array; width: number; height: number };
  job: Pick<
    SignJob,
    "locations" | "keyword" | "keywordOrder" | "keywordSeq" | "qrCodeLocations" | "qrContent"
  >;
}

interface SealState {
  signer: PadesSigner | undefined;
  limits: PdfLimits;
  /** Each seal's image, prepared once per version: decoding a PNG is most of drawing a seal. */
  images: Map<string, { version: number; image: PreparedImage }>;
}

export function setup({ certificate, limits }: SealSetup): SealState {
  // The PKCS#12 bytes arrive as a plain byte array; the signer reads them as a Buffer.
  const signer = certificate
    ? createPadesSigner({ p12: Buffer.from(certificate.p12), passphrase: certificate.passphrase })
    : undefined;
  return { signer, limits, images: new Map() };
}

let keywordSearch: Promise<unknown> | undefined;

/**
 * pdf.js, which takes longer to load than pdf-lib and the signer together: loaded when a keyword
 * first needs it, or in the idle time after the thread's first document, not before it.
 */
function loadKeywordSearch(): Promise<unknown> {
  keywordSearch ??= import("./keyword-search.ts").catch((error: unknown) => {
    keywordSearch = undefined;
    throw error;
  });
  return keywordSearch;
}

/** Loads pdf.js for a keyword before the document's time starts. */
export async function prepare({ job }: SealWork): Promise<void> {
  // Rule 1 of spec 000: coordinates win, and the keyword is then never searched.
  if (job.keyword && !job.locations?.length) await loadKeywordSearch();
}

export async function work({ pdf, seal, job }: SealWork, state: SealState): Promise<SealedPdf> {
  let prepared = state.images.get(seal.id);
  if (!prepared || prepared.version !== seal.version) {
    prepared = { version: seal.version, image: await PreparedImage.fromPng(seal.png) };
    state.images.set(seal.id, prepared);
  }
  try {
    return await sealPdf(pdf, { image: prepared.image, width: seal.width, height: seal.height }, job, {
      sign: state.signer,
      limits: state.limits,
    });
  } catch (error) {
    // A failure of the file or of the request against it, answered to the caller as spec 000 says.
    if (error instanceof SealingError || error instanceof PlacementError) {
      throw new PlatformError(ErrorCode.Unprocessable, error.message);
    }
    throw error;
  } finally {
    loadKeywordSearch().catch(() => {});
  }
}
