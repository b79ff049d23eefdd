import type { Queryable } from "../runtime/database.ts";
import { readSealImage } from "./seal-store.ts";

/** A seal's image as sealing draws it: the PNG bytes and the printed size, of one version. */
export interface SealImage {
  id: string;
  version: number;
  png: Buffer;
  width: number;
  height: number;
}

/**
 * The seals' images as a signing worker uses them: each read from the database once per version,
 * then served from memory. A job names the version the gateway found, so a changed seal is read
 * again by the first job that names its new version.
 */
export class SealImages {
  private readonly images = new Map<string, SealImage>();

  constructor(private readonly sql: Queryable) {}

  /** The seal's image at `version` or later; undefined when the seal no longer exists. */
  async get(id: string, version: number): Promise<SealImage | undefined> {
    const cached = this.images.get(id);
    if (cached && cached.version >= version) return cached;
    const row = await readSealImage(this.sql, id);
    if (!row) return undefined;
    const image = { id, version: row.version, png: row.image, width: row.width, height: row.height };
    this.images.set(id, image);
    return image;
  }
}
