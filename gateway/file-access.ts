import type { Context } from "hono";
import type { DownloadRequest } from "../files/download-access.ts";
import type { Config } from "../runtime/config.ts";
import { clientAddress } from "./client-address.ts";
import type { GatewayEnv } from "./gateway-env.ts";

/**
 * The persistent address of a stored file (spec 001's file service `GET /file/{id}`), on
 * FILE_PUBLIC_URL: an origin apart from the gateway's keeps what users upload away from its pages.
 */
export function fileUrl(config: Config, fileId: string): string {
  return `${config.files.publicUrl}/file/${fileId}`;
}

/** Who asks for a download: the request's `access_token` and the client's address. */
export function downloadRequest(c: Context<GatewayEnv>, config: Config): DownloadRequest {
  return {
    accessToken: c.req.query("access_token"),
    address: clientAddress(c, config.http.trustProxyHops),
  };
}
