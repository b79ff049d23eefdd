import type { StoredUpload } from "../runtime/storage/file-storage.ts";

/** A stored file as the file service keeps it: its record, and the key of its content's blob. */
export interface FileRecord {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha1Hash: string;
  sha256: string;
  storageKey: string;
  tags: string;
  thumbsizes: string[];
  meta: Record<string, unknown>;
  tokenHash: string | null;
  applicationId: string | null;
  userId: string | null;
  tenantId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who a file belongs to: the application that stored it, and the user and tenant it did so for. */
export interface FileOwner {
  applicationId: string;
  userId?: string | undefined;
  tenantId?: string | undefined;
}

/** Content in storage, made the blob of its SHA-256, with the name and type it is kept under. */
export interface FileContent {
  name: string;
  mime: string;
  upload: StoredUpload;
  storageKey: string;
  thumbsizes?: string[] | undefined;
}

/** A file to record: its content, whose it is, and the meta it starts with. */
export interface NewFile extends FileContent {
  id: string;
  owner: FileOwner;
  meta?: Record<string, unknown>;
}

/** A thumbnail of a file, as stored. */
export interface ThumbRecord {
  storageKey: string;
  mime: string;
  bytes: number;
}
