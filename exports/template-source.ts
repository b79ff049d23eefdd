import type { Agent } from "undici";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { readOpenFile } from "../files/stored-files.ts";
import type { Queryable } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import {
  pinnedLookup,
  type ResolvedAddress,
  reachableAddress,
  systemResolve,
  UnreachableAddress,
} from "../runtime/outbound-address.ts";
import type { FileStorage } from "../runtime/storage/file-storage.ts";
import { HostAllowlist } from "../runtime/template-hosts.ts";

export type { ResolvedAddress } from "../runtime/outbound-address.ts";

export interface TemplateSourceOptions {
  sql: Queryable;
  storage: FileStorage;
  /** The platform's addresses (PUBLIC_URL, FILE_PUBLIC_URL): templates on its own file service are read from storage. */
  publicUrls: readonly string[];
  /**
   * Hosts and ports templates may be fetched from: `docs.example.edu` (on the scheme's default
   * port), `*.example.edu` for its subdomains, `docs.example.edu:8443`, `10.0.0.5:8080`, `[fd00::5]`.
   */
  allowedHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  /** Why a fetch failed goes here; the caller is told only that it did. */
  log: Logger;
  /** Every address of a name; the system resolver's unless a test stands in for it. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/** Why a fetch failed, for the log: the caller's answer is the same whatever it was. */
class FetchFailure extends Error {}

/**
 * Export templates by URI. A template URI is caller input, so it is fetched only from the hosts
 * and ports the operator allows, from public addresses only unless an internal address is listed
 * itself, without following redirects, within a size limit and a timeout. The address checked is
 * the address connected to (a second resolution could answer another). Every failure answers the
 * caller alike, so nothing tells an open port from a closed one or a name that resolves from one
 * that does not. Files of the platform's own file service are read from storage directly.
 */
export class TemplateSource {
  private readonly allowlist: HostAllowlist;
  private readonly resolve: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Fetches under way, each on a dispatcher of its own, ended at `close`. */
  private readonly inFlight = new Set<Agent>();

  constructor(private readonly options: TemplateSourceOptions) {
    this.allowlist = new HostAllowlist(options.allowedHosts);
    this.resolve = options.resolve ?? systemResolve;
  }

  /**
   * `what` names the URI in errors: the template, or an image of the data. `platformUrls` are the
   * addresses the job's gateway serves the file service at, beside those of this process.
   */
  async fetch(uri: string, what = "template", platformUrls: readonly string[] = []): Promise<Buffer> {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new PlatformError(ErrorCode.InvalidArgument, `${what}: ${JSON.stringify(uri)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new PlatformError(ErrorCode.InvalidArgument, `${what}: only http and https URLs are fetched`);
    }
    for (const base of [...platformUrls, ...this.options.publicUrls]) {
      const own = `${base}/file/`;
      if (uri.startsWith(own)) return this.ownFile(uri.slice(own.length), what);
    }
    if (!this.allowlist.allows(url)) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `${what}: the host ${url.host} is not among those the export service may fetch from (EXPORT_TEMPLATE_HOSTS)`,
      );
    }
    try {
      return await this.download(url, await this.checkedAddress(url));
    } catch (error) {
      this.options.log.warn(
        {
          what,
          host: url.host,
          reason:
            error instanceof FetchFailure || error instanceof UnreachableAddress
              ? error.message
              : String(error),
        },
        "export source could not be fetched",
      );
      throw new PlatformError(ErrorCode.Unprocessable, `${what}: could not be fetched from ${url.host}`);
    }
  }

  /**
   * The address to connect to: the URL's own, or the name's, when every address it has may be
   * reached. An address in the URL passed the allowlist only by an entry naming that address.
   */
  private checkedAddress(url: URL): Promise<ResolvedAddress> {
    return reachableAddress(
      url,
      this.resolve,
      (address) => this.allowlist.listsAddress(address, url),
      "not listed itself in EXPORT_TEMPLATE_HOSTS",
    );
  }

  /** One request to `url`, its connection made to `pinned` whatever the name resolves to by then. */
  private async download(url: URL, pinned: ResolvedAddress): Promise<Buffer> {
    const undici = await import("undici");
    const lookup = pinnedLookup(pinned);
    const agent = new undici.Agent({
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
      connect: { timeout: this.options.timeoutMs, lookup },
    });
    this.inFlight.add(agent);
    try {
      // Redirects are not followed (undici does not unless asked): a 3xx fails like any non-200.
      const response = await undici.request(url, { dispatcher: agent });
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new FetchFailure(`${url.host} answered ${response.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > this.options.maxBytes) {
          response.body.destroy();
          throw new FetchFailure(`larger than EXPORT_TEMPLATE_MAX_BYTES (${this.options.maxBytes} bytes)`);
        }
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    } finally {
      this.inFlight.delete(agent);
      await agent.destroy();
    }
  }

  private async ownFile(id: string, what: string): Promise<Buffer> {
    const read = /^[0-9a-f-]{36}$/.test(id)
      ? await readOpenFile(this.options, id, this.options.maxBytes)
      : { refused: "missing" as const };
    if ("content" in read) return read.content;
    switch (read.refused) {
      case "missing":
        throw new PlatformError(ErrorCode.InvalidArgument, `${what}: no file ${id} on this platform`);
      case "secure":
        throw new PlatformError(
          ErrorCode.PermissionDenied,
          `${what}: a secure file cannot be read by the export service`,
        );
      case "too-large":
        throw new PlatformError(
          ErrorCode.Unprocessable,
          `${what}: larger than ${this.options.maxBytes} bytes`,
        );
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.inFlight].map((agent) => agent.destroy()));
  }
}
