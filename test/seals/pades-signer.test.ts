import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import forge from "node-forge";
import { PDFDocument } from "pdf-lib";
import { createPadesSigner } from "../../workers/sign/pades-signature.ts";
import { tempDir } from "../support/platform.ts";
import { pdfsig } from "../support/sealed-pdf-reader.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { missingSystemPackages, POPPLER } from "../support/system-requirements.ts";

/** An operator's PKCS#12 file: a key and its certificate after another one, under a passphrase. */
function operatorP12(passphrase: string): Buffer {
  const certificates = ["Some other certificate", "Operator seal"].map((commonName) => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const key = forge.pki.privateKeyFromPem(privateKey.export({ type: "pkcs1", format: "pem" }).toString());
    const certificate = forge.pki.createCertificate();
    certificate.publicKey = forge.pki.publicKeyFromPem(
      publicKey.export({ type: "spki", format: "pem" }).toString(),
    );
    certificate.serialNumber = "01";
    certificate.validity.notBefore = new Date(Date.now() - 60_000);
    certificate.validity.notAfter = new Date(Date.now() + 3600_000);
    certificate.setSubject([{ name: "commonName", value: commonName }]);
    certificate.setIssuer([{ name: "commonName", value: commonName }]);
    certificate.sign(key, forge.md.sha256.create());
    return { key, certificate };
  });
  const p12 = forge.pkcs12.toPkcs12Asn1(
    certificates[1]!.key,
    certificates.map((entry) => entry.certificate),
    passphrase,
    { algorithm: "3des" },
  );
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), "binary");
}

async function onePagePdf(): Promise<PDFDocument> {
  const document = await PDFDocument.create();
  document.addPage([200, 200]).drawText("contract", { x: 20, y: 100 });
  return document;
}

describe("PAdES signer", () => {
  let scratch: Awaited<ReturnType<typeof tempDir>>;
  const p12 = operatorP12("s3cret passphrase");

  before(async () => {
    scratch = await tempDir("op-pades-");
  });

  after(async () => {
    await scratch?.remove();
  });

  it("signs with the key of a passphrase-protected file, by the certificate that matches it", {
    skip: missingSystemPackages(POPPLER),
  }, async () => {
    const sign = createPadesSigner({ p12, passphrase: "s3cret passphrase" });
    const report = await pdfsig(await sign(await onePagePdf(), "sealed"), scratch.path);
    assert.match(report, /Signature Validation: Signature is Valid\./);
    assert.match(report, /Signer Certificate Common Name: Operator seal/);
  });

  it("refuses a wrong passphrase when it starts, not on the first document", () => {
    assert.throws(() => createPadesSigner({ p12, passphrase: "wrong" }));
  });
});
