/**
 * Checked by `tsc` (`npm run check`, so `npm test`), never run: producing a job with a payload
 * that is not its kind's, reading an answer as another type, and a handler answering the wrong
 * thing must not compile. Each `@ts-expect-error` fails the check once its line compiles.
 */
import type { ExportJob, ExportResult } from "../../contracts/export.ts";
import type { SignJob, SignResult } from "../../contracts/signature.ts";
import type { JobClient } from "../../runtime/broker/job-client.ts";
import type { PlatformJobHandlers } from "../../workers/worker-part.ts";

export async function producersAreTyped(
  jobs: JobClient,
  sign: SignJob,
  render: ExportJob,
): Promise<unknown[]> {
  await jobs.enqueue("filesThumbs", { fileId: "0190c1f0-0000-7000-8000-000000000000" });
  // @ts-expect-error a thumbnail job names its file by `fileId`
  await jobs.enqueue("filesThumbs", { id: "0190c1f0-0000-7000-8000-000000000000" });
  // @ts-expect-error a feed run says what triggered it
  await jobs.enqueue("feedSync", { tenantId: "t", requestedAt: 1 });
  // @ts-expect-error no job kind is called so
  await jobs.enqueue("thumbnails", { fileId: "f" });

  const sealed: SignResult = await jobs.call("sign", sign);
  const exported: ExportResult = await jobs.call("export", render);
  // @ts-expect-error an export job's payload is not a sign job's
  await jobs.call("sign", render);
  // @ts-expect-error the answer of `sign` is a SignResult, not an ExportResult
  const misread: ExportResult = await jobs.call("sign", sign);
  // @ts-expect-error nobody waits for a thumbnail job: it is not a request/reply kind
  await jobs.call("filesThumbs", { fileId: "f" });
  return [sealed, exported, misread];
}

export const handlersAreTyped: Partial<PlatformJobHandlers<"sign" | "filesThumbs">>[] = [
  // @ts-expect-error a sign handler answers with its SignResult
  { sign: async () => ({ outcome: "done" }) },
  // @ts-expect-error the answer must be a SignResult
  { sign: async () => ({ outcome: "done", reply: { mime: "application/pdf", outputs: [] } }) },
  { filesThumbs: async ({ fileId }) => ({ outcome: fileId ? "done" : "retry", reason: "no file" }) },
  { sign: async (job) => ({ outcome: "fail", reason: `seal ${job.sealId} withdrawn` }) },
];
