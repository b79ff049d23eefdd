import { ErrorCode, isPlatformError } from "../../contracts/errors.ts";
import type { SignJob, SignResult } from "../../contracts/signature.ts";
import type { Sql } from "../../runtime/database.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";
import { SealImages } from "../../seals/seal-images.ts";
import { type DocumentThreads, ownBuffer } from "../document-thread.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";
import type { SealedPdf } from "./seal-pdf.ts";
import type { SealWork } from "./seal-work.ts";

export interface SignDeps {
  sql: Sql;
  storage: FileStorage;
  /** Where the PDF is parsed, sealed and signed: never on the event loop that serves requests. */
  threads: DocumentThreads<SealWork, SealedPdf>;
}

/**
 * The `sign` job: seals the stored upload, writes the result to storage and answers where it is.
 * A seal's image is read once per version, then served from memory.
 */
export function signDocument(deps: SignDeps) {
  const seals = new SealImages(deps.sql);
  return async (job: SignJob, context: JobContext): Promise<JobOutcome<SignResult>> => {
    const seal = await seals.get(job.sealId, job.sealVersion);
    if (!seal) return { outcome: "refused", reason: "the seal no longer exists", code: ErrorCode.NotFound };
    const pdf = ownBuffer(await deps.storage.readBytes(job.inputKey));
    // A copy: the cached image stays here for the next job.
    const png = new Uint8Array(seal.png);
    try {
      const sealed = await deps.threads.run(
        { pdf, seal: { ...seal, png }, job },
        { transfer: [pdf.buffer, png.buffer], signal: context.signal },
      );
      // The gateway streams the result back and removes it: scratch, not flushed.
      await deps.storage.writeBytes(job.outputKey, sealed.bytes, { scratch: true });
      const reply: SignResult = {
        outputKey: job.outputKey,
        bytes: sealed.bytes.byteLength,
        pages: sealed.pages,
        seals: sealed.seals,
        qrCodes: sealed.qrCodes,
      };
      context.log.debug(reply, "sealed");
      return { outcome: "done", reply };
    } catch (error) {
      // The file's failures and the limits' refusals: the caller's to hear, never retried.
      if (isPlatformError(error)) return { outcome: "refused", reason: error.message, code: error.code };
      // A fault of ours: the log has the details, the caller a plain statement.
      context.log.error({ err: error }, "sealing failed");
      return { outcome: "fail", reason: "sealing failed on the platform's side", code: ErrorCode.Internal };
    }
  };
}
