import { loadedOnFirstJob, workerPart } from "../worker-part.ts";
import { loadSigningCertificate, type SigningCertificate } from "./signing-certificate.ts";

/** Sealing: the certificate is loaded at start (a wrong one stops it), the PDF libraries at the first job. */
export const signPart = workerPart({
  jobs: ["sign"],
  async start({ config, platform }) {
    const certificate =
      config.sign.signature === "pades"
        ? await loadSigningCertificate(
            { p12File: config.sign.p12File, passphrase: config.sign.p12Passphrase, dataDir: config.dataDir },
            platform.log,
          )
        : undefined;
    return {
      handlers: {
        sign: loadedOnFirstJob(async () => {
          const [{ signDocument }, signer] = await Promise.all([
            import("./sign-document.ts"),
            certificate ? padesSigner(certificate) : undefined,
          ]);
          return signDocument({ sql: platform.db.sql, storage: platform.storage, signer });
        }),
      },
    };
  },
});

async function padesSigner(certificate: SigningCertificate) {
  const { createPadesSigner } = await import("./pades-signature.ts");
  return createPadesSigner(certificate);
}
