import type { ExportResult } from "../contracts/export.ts";
import type { GatewayDeps } from "./gateway-env.ts";

/** The first output of an export, streamed from storage as an attachment named `name`. */
export function exportedFileResponse(deps: GatewayDeps, result: ExportResult, name: string): Response {
  const output = result.outputs[0]!;
  return new Response(deps.storage.readStream(output.key), {
    headers: {
      "content-type": result.mime,
      "content-length": String(output.bytes),
      "content-disposition": `attachment; filename="${name}"`,
    },
  });
}
