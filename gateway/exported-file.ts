import type { ExportResult } from "../contracts/export.ts";
import type { GatewayUses } from "./gateway-env.ts";
import { userContentHeaders } from "./user-content-headers.ts";

/** The first output of an export, streamed from storage as an attachment named `name`. */
export function exportedFileResponse(
  deps: GatewayUses<"storage">,
  result: ExportResult,
  name: string,
): Response {
  const output = result.outputs[0]!;
  return new Response(deps.storage.readStream(output.key), {
    headers: {
      // The document is filled from the caller's template and data.
      ...userContentHeaders(result.mime, { filename: name, attachment: true }),
      "content-length": String(output.bytes),
    },
  });
}
