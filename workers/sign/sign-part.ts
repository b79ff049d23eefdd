import { jobCatalogue } from "../../contracts/jobs.ts";
import { DocumentThreads } from "../document-thread.ts";
import { workerPart } from "../worker-part.ts";
import type { SealedPdf } from "./seal-pdf.ts";
import type { SealSetup, SealWork } from "./seal-work.ts";
import { signDocument } from "./sign-document.ts";
import { loadSigningCertificate } from "./signing-certificate.ts";

/**
 * Sealing: the certificate is loaded at start (a wrong one stops it); the PDF libraries load in
 * the document threads, the first of which starts with the first job.
 */
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
    const setup: SealSetup = {
      certificate,
      limits: {
        maxPages: config.sign.maxPages,
        maxNesting: config.sign.maxNesting,
        maxInflatedBytes: config.sign.maxInflatedBytes,
      },
    };
    const threads = new DocumentThreads<SealWork, SealedPdf>({
      module: new URL("./seal-work.ts", import.meta.url),
      setup,
      threads: config.workerConcurrency ?? jobCatalogue.sign.concurrency,
      heapMb: config.documentThreads.heapMb,
      // Within the job's timeout, so that the caller hears the refusal rather than a timeout.
      timeoutMs: Math.min(config.documentThreads.timeoutMs, Math.floor(config.sign.timeoutMs * 0.8)),
      subject: "the PDF",
    });
    return {
      handlers: { sign: signDocument({ sql: platform.db.sql, storage: platform.storage, threads }) },
      close: () => threads.close(),
    };
  },
});
