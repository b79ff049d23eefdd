import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { P12Signer } from "@signpdf/signer-p12";
import { SignPdf } from "@signpdf/signpdf";
import { SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import type { PDFDocument } from "pdf-lib";
import { SAVE_OPTIONS } from "./save-options.ts";
import type { SigningCertificate } from "./signing-certificate.ts";

/** Signs a document (PAdES baseline, CAdES detached) with the platform's certificate; returns the saved bytes. */
export function createPadesSigner(certificate: SigningCertificate) {
  const signPdf = new SignPdf();
  return async function sign(document: PDFDocument, reason: string): Promise<Uint8Array> {
    pdflibAddPlaceholder({
      pdfDoc: document,
      reason,
      contactInfo: "",
      name: "Open Platform seal service",
      location: "",
      subFilter: SUBFILTER_ETSI_CADES_DETACHED,
      signatureLength: 8192,
    });
    const unsigned = await document.save({ ...SAVE_OPTIONS, updateFieldAppearances: true });
    // A P12Signer reads its key material as it signs, so each signature gets a fresh one.
    const signer = new P12Signer(certificate.p12, { passphrase: certificate.passphrase });
    return signPdf.sign(Buffer.from(unsigned.buffer, unsigned.byteOffset, unsigned.byteLength), signer);
  };
}

export type PadesSigner = ReturnType<typeof createPadesSigner>;
