import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PROJECT_ROOT } from "./imports.ts";

/** One `COPY` of the Dockerfile: what it copies from the checkout, and where in the image. */
export interface DockerfileCopy {
  sources: string[];
  destination: string;
}

/** The Dockerfile's text and its `COPY` lines, in order. */
export async function dockerfile(): Promise<{ text: string; copies: DockerfileCopy[] }> {
  const text = await readFile(join(PROJECT_ROOT, "Dockerfile"), "utf8");
  const copies = [...text.matchAll(/^COPY (.+)$/gm)].map((match) => {
    const parts = match[1]!.trim().split(/\s+/);
    return { sources: parts.slice(0, -1), destination: parts.at(-1)! };
  });
  return { text, copies };
}
