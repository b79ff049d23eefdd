import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout's root, from which project files are named. */
export const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every module a file imports, statically or dynamically, as written. */
export function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)].map(
    (match) => match[1]!,
  );
}

/** The project files a file imports, by path from the root. */
export function localImports(file: string, text: string): string[] {
  return importsOf(text)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(PROJECT_ROOT, resolve(dirname(join(PROJECT_ROOT, file)), specifier)));
}
