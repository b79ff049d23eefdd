import type { Agent } from "undici";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Queryable } from "./database.ts";
import type { FileStorage } from "./storage/file-storage.ts";
import { fileById } from "./store/files.ts";

export interface TemplateSourceOptions {
  sql: Queryable;
  storage: FileStorage;
  /** The platform's addresses (PUBLIC_URL, FILE_PUBLIC_URL): templates on its own file service are read from storage. */
  publicUrls: readonly string[];
  /** Hosts templates may be fetched from: `docs.example.edu`, or `*.example.edu` for its subdomains. */
  allowedHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) =>
    pattern.startsWith("*.")
      ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1
      : host === pattern,
  );
}

/**
 * Export templates by URI. A template URI is caller input, so it is fetched only from the hosts
 * the operator allows (no other address is ever contacted, internal ones included), without
 * following redirects, within a size limit and a timeout. Files of the platform's own file
 * service are read from storage directly.
 */
export class TemplateSource {
  private agent: Agent | undefined;

  constructor(private readonly options: TemplateSourceOptions) {}

  /** undici is loaded at the first template fetched from another host, not at every worker's start. */
  private async client() {
    const undici = await import("undici");
    this.agent ??= new undici.Agent({
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
      connectTimeout: this.options.timeoutMs,
    });
    return { request: undici.request, agent: this.agent };
  }

  /** `what` names the URI in errors: the template, or an image of the data. */
  async fetch(uri: string, what = "template"): Promise<Buffer> {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new PlatformError(ErrorCode.InvalidArgument, `${what}: ${JSON.stringify(uri)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new PlatformError(ErrorCode.InvalidArgument, `${what}: only http and https URLs are fetched`);
    }
    for (const base of this.options.publicUrls) {
      const own = `${base}/file/`;
      if (uri.startsWith(own)) return this.ownFile(uri.slice(own.length), what);
    }
    if (!hostAllowed(url.hostname, this.options.allowedHosts)) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `${what}: the host ${url.hostname} is not among those the export service may fetch from (EXPORT_TEMPLATE_HOSTS)`,
      );
    }
    const { request, agent } = await this.client();
    let response: Awaited<ReturnType<typeof request>>;
    try {
      // Redirects are not followed (undici does not unless asked): a 3xx is refused like any non-200.
      response = await request(url, { dispatcher: agent });
    } catch (error) {
      throw new PlatformError(
        ErrorCode.Unprocessable,
        `${what}: ${url.host} could not be reached: ${(error as Error).message}`,
      );
    }
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new PlatformError(
        ErrorCode.Unprocessable,
        `${what}: ${url.host} answered ${response.statusCode}`,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > this.options.maxBytes) {
        response.body.destroy();
        throw new PlatformError(
          ErrorCode.Unprocessable,
          `${what}: larger than ${this.options.maxBytes} bytes`,
        );
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  private async ownFile(id: string, what: string): Promise<Buffer> {
    const file = /^[0-9a-f-]{36}$/.test(id) ? await fileById(this.options.sql, id) : undefined;
    if (!file) throw new PlatformError(ErrorCode.InvalidArgument, `${what}: no file ${id} on this platform`);
    if (file.meta.secure === true) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `${what}: a secure file cannot be read by the export service`,
      );
    }
    if (file.size > this.options.maxBytes) {
      throw new PlatformError(ErrorCode.Unprocessable, `${what}: larger than ${this.options.maxBytes} bytes`);
    }
    return this.options.storage.readBytes(file.storageKey);
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}
