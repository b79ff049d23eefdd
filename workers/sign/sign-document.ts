import { ErrorCode } from "../../contracts/errors.ts";
import type { SignJob, SignResult } from "../../contracts/signature.ts";
import type { Sql } from "../../runtime/database.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";
import { readSealImage } from "../../runtime/store/seals.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";
import type { PadesSigner } from "./pades-signature.ts";
import { PreparedImage } from "./prepared-image.ts";
import { type SealImage, SealingError, sealPdf } from "./seal-pdf.ts";
import { PlacementError } from "./seal-placement.ts";

export interface SignDeps {
  sql: Sql;
  storage: FileStorage;
  /** Absent when SIGN_SIGNATURE=none: the seal image only. */
  signer: PadesSigner | undefined;
}

interface CachedSeal {
  version: number;
  image: SealImage;
}

/**
 * The `sign` job: seals the stored upload, writes the result to storage and answers where it is.
 * A seal's image is read and prepared once per version, then served from memory.
 */
export function signDocument(deps: SignDeps) {
  const seals = new Map<string, CachedSeal>();
  /** The seal's image, read from the database only when the job names a version not yet cached. */
  const sealImage = async (id: string, version: number): Promise<SealImage | undefined> => {
    const cached = seals.get(id);
    if (cached && cached.version >= version) return cached.image;
    const row = await readSealImage(deps.sql, id);
    if (!row) return undefined;
    const image = await PreparedImage.fromPng(row.image);
    const sealImage = { image, width: row.width, height: row.height };
    seals.set(id, { version: row.version, image: sealImage });
    return sealImage;
  };
  return async (job: SignJob, context: JobContext): Promise<JobOutcome<SignResult>> => {
    const seal = await sealImage(job.sealId, job.sealVersion);
    if (!seal) return { outcome: "refused", reason: "the seal no longer exists", code: ErrorCode.NotFound };
    const input = await deps.storage.readBytes(job.inputKey);
    try {
      const sealed = await sealPdf(input, seal, job, deps.signer);
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
      if (error instanceof SealingError || error instanceof PlacementError) {
        return { outcome: "refused", reason: error.message, code: ErrorCode.Unprocessable };
      }
      // A fault of ours: the log has the details, the caller a plain statement.
      context.log.error({ err: error }, "sealing failed");
      return { outcome: "fail", reason: "sealing failed on the platform's side", code: ErrorCode.Internal };
    }
  };
}
