import type { Config } from "../runtime/config.ts";

/**
 * The addresses this gateway's file service answers at, for an export job: the worker that renders
 * it reads templates and images under them from storage, whatever process it runs in and however
 * it is configured.
 */
export function platformUrls(config: Config): string[] {
  return [...new Set([config.http.publicUrl, config.files.publicUrl])];
}
