import { constants, createPrivateKey, type KeyObject, privateEncrypt } from "node:crypto";
import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { SignPdf } from "@signpdf/signpdf";
import { Signer, SignPdfError, SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import forge from "node-forge";
import type { PDFDocument } from "pdf-lib";
import { SAVE_OPTIONS } from "./save-options.ts";
import type { SigningCertificate } from "./signing-certificate.ts";

/** DER of a SHA-256 DigestInfo up to the digest itself (RFC 8017 §9.2, note 1). */
const SHA256_DIGEST_INFO = Buffer.from("3031300d060960864801650304020105000420", "hex");

const OIDS = {
  certBag: forge.pki.oids.certBag!,
  keyBag: forge.pki.oids.pkcs8ShroudedKeyBag!,
  sha256: forge.pki.oids.sha256!,
  contentType: forge.pki.oids.contentType!,
  data: forge.pki.oids.data!,
  signingTime: forge.pki.oids.signingTime!,
  messageDigest: forge.pki.oids.messageDigest!,
};

/** The certificate chain and private key of a PKCS#12 file, with the certificate the key belongs to. */
interface SigningIdentity {
  certificates: forge.pki.Certificate[];
  signerCertificate: forge.pki.Certificate;
  /** The key as forge's CMS builder calls it, signing through node:crypto. */
  key: forge.pki.rsa.PrivateKey;
}

/**
 * forge calls a signer's key with the digest of the signed attributes; RSASSA-PKCS1-v1_5 is the
 * type-1 padding of that digest's DigestInfo under the private key, which node:crypto makes.
 */
function nativeSigningKey(key: KeyObject): forge.pki.rsa.PrivateKey {
  const sign = (digest: forge.md.MessageDigest) =>
    privateEncrypt(
      { key, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(digest.digest().getBytes(), "binary")]),
    ).toString("binary");
  return { sign } as unknown as forge.pki.rsa.PrivateKey;
}

function readIdentity(certificate: SigningCertificate): SigningIdentity {
  const der = forge.util.createBuffer(certificate.p12.toString("binary"));
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), false, certificate.passphrase);
  const certificates = (p12.getBags({ bagType: OIDS.certBag })[OIDS.certBag] ?? [])
    .map((bag: forge.pkcs12.Bag) => bag.cert)
    .filter((cert): cert is forge.pki.Certificate => cert !== undefined);
  const forgeKey = p12.getBags({ bagType: OIDS.keyBag })[OIDS.keyBag]?.[0]?.key as
    | forge.pki.rsa.PrivateKey
    | undefined;
  if (!forgeKey) throw new SignPdfError("the PKCS#12 file holds no private key", SignPdfError.TYPE_INPUT);
  const signerCertificate = certificates.find((cert: forge.pki.Certificate) => {
    const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
    return publicKey.n.compareTo(forgeKey.n) === 0 && publicKey.e.compareTo(forgeKey.e) === 0;
  });
  if (!signerCertificate) {
    throw new SignPdfError("no certificate of the PKCS#12 file matches its key", SignPdfError.TYPE_INPUT);
  }
  const key = nativeSigningKey(createPrivateKey(forge.pki.privateKeyToPem(forgeKey)));
  return { certificates, signerCertificate, key };
}

/**
 * A CAdES-detached signer over a key read once. node-forge builds the CMS structure, as
 * @signpdf/signer-p12 does, but the RSA signature is node:crypto's: forge's own, in JavaScript,
 * and reading the PKCS#12 file again for every document took most of a signed sealing's time.
 */
class IdentitySigner extends Signer {
  constructor(private readonly identity: SigningIdentity) {
    super();
  }

  override async sign(pdf: Buffer, signingTime?: Date): Promise<Buffer> {
    const { certificates, signerCertificate, key } = this.identity;
    const signedData = forge.pkcs7.createSignedData();
    signedData.content = forge.util.createBuffer(pdf.toString("binary"));
    for (const certificate of certificates) signedData.addCertificate(certificate);
    signedData.addSigner({
      key,
      certificate: signerCertificate,
      digestAlgorithm: OIDS.sha256,
      // This order of the signed attributes is the one EU validators accept.
      authenticatedAttributes: [
        { type: OIDS.contentType, value: OIDS.data },
        { type: OIDS.signingTime, value: (signingTime ?? new Date()) as unknown as string },
        { type: OIDS.messageDigest },
      ],
    });
    signedData.sign({ detached: true });
    return Buffer.from(forge.asn1.toDer(signedData.toAsn1()).getBytes(), "binary");
  }
}

/** Signs a document (PAdES baseline, CAdES detached) with the platform's certificate; returns the saved bytes. */
export function createPadesSigner(certificate: SigningCertificate) {
  const signPdf = new SignPdf();
  const signer = new IdentitySigner(readIdentity(certificate));
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
    return signPdf.sign(Buffer.from(unsigned.buffer, unsigned.byteOffset, unsigned.byteLength), signer);
  };
}

export type PadesSigner = ReturnType<typeof createPadesSigner>;
