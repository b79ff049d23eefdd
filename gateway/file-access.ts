import type { Context } from "hono";
import type { DownloadDeps, DownloadRequest } from "../files/download-access.ts";
import { FileTokenGuard } from "../files/file-token-guard.ts";
import type { Config } from "../runtime/config.ts";
import { clientAddress } from "./client-address.ts";
import type { GatewayDeps, GatewayEnv } from "./gateway-env.ts";

/**
 * The persistent address of a stored file (spec 001's file service `GET /file/{id}`), on
 * FILE_PUBLIC_URL: an origin apart from the gateway's keeps what users upload away from its pages.
 */
export function fileUrl(config: Config, fileId: string): string {
  return `${config.files.publicUrl}/file/${fileId}`;
}

/** What the checks of the file service's downloads need, built once: one guard counts wrong file tokens. */
export function downloadDeps(deps: GatewayDeps): DownloadDeps {
  const { files } = deps.config;
  return {
    sql: deps.db.sql,
    accessTokens: deps.oauth.accessTokens,
    guard: new FileTokenGuard(deps.db.sql, files.tokenMaxFailures, files.tokenLockoutSeconds),
  };
}

/** Who asks for a download: the request's `access_token` and the client's address. */
export function downloadRequest(c: Context<GatewayEnv>, config: Config): DownloadRequest {
  return {
    accessToken: c.req.query("access_token"),
    address: clientAddress(c, config.http.trustProxyHops),
  };
}
