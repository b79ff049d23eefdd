import { readFile } from "node:fs/promises";
import type { HandlerOutcome } from "../../contracts/broker.ts";
import { ErrorCode } from "../../contracts/errors.ts";
import type { SignJob, SignResult } from "../../contracts/signature.ts";
import type { Sql } from "../../runtime/database.ts";
import type { FileStorage } from "../../runtime/file-storage.ts";
import type { JobContext } from "../job-runner.ts";
import type { PadesSigner } from "./pades-signature.ts";
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
 * A seal's image is read once per version, then served from memory.
 */
export function signDocument(deps: SignDeps) {
  const seals = new Map<string, CachedSeal>();
  const sealImage = async (id: string): Promise<SealImage | undefined> => {
    const cached = seals.get(id);
    const [row] = await deps.sql<{ version: number; width: number; height: number; image: Buffer | null }[]>`
      select version, width, height, case when version = ${cached?.version ?? -1} then null else image end as image
      from seals where id = ${id}`;
    if (!row) return undefined;
    if (row.image)
      seals.set(id, {
        version: row.version,
        image: { png: row.image, width: row.width, height: row.height },
      });
    return seals.get(id)!.image;
  };
  return async (job: SignJob, context: JobContext): Promise<HandlerOutcome> => {
    const seal = await sealImage(job.sealId);
    if (!seal) return { outcome: "fail", reason: "the seal no longer exists", code: ErrorCode.NotFound };
    const input = await readFile(deps.storage.pathOf(job.inputKey));
    try {
      const sealed = await sealPdf(input, seal, job, deps.signer);
      await deps.storage.writeBytes(job.outputKey, sealed.bytes);
      const reply: SignResult = {
        outputKey: job.outputKey,
        pages: sealed.pages,
        seals: sealed.seals,
        qrCodes: sealed.qrCodes,
      };
      context.log.debug(reply, "sealed");
      return { outcome: "done", reply };
    } catch (error) {
      if (error instanceof SealingError || error instanceof PlacementError) {
        return { outcome: "fail", reason: error.message, code: ErrorCode.Unprocessable };
      }
      // A fault of ours: the log has the details, the caller a plain statement.
      context.log.error({ err: error }, "sealing failed");
      return { outcome: "fail", reason: "sealing failed on the platform's side", code: ErrorCode.Internal };
    }
  };
}
