import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Queryable } from "../../runtime/database.ts";
import { newSecret } from "../../runtime/secrets.ts";
import { readCallbackSecret, type SealedSecret, storeCallbackSecret } from "./callback-secret-store.ts";

/** The key file made under DATA_DIR when CALLBACK_SECRET_KEY is unset. */
export const CALLBACK_KEY_FILE = "callback-secret.key";

/** A secret stored under another key than this process's: every process must be given the same one. */
export class CallbackKeyMismatch extends Error {}

/** Where the key comes from: CALLBACK_SECRET_KEY, else the key file in the data directory. */
export interface CallbackKeySource {
  secretKey: Buffer | undefined;
  dataDir: string;
}

/** The key file's key, made (hex, readable by its owner only) when there is none yet. */
async function keyFromFile(dataDir: string): Promise<Buffer> {
  const file = join(dataDir, CALLBACK_KEY_FILE);
  await mkdir(dataDir, { recursive: true });
  try {
    // `wx`: of processes starting together on one data directory, one makes it and the others read it.
    await writeFile(file, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const key = Buffer.from((await readFile(file, "utf8")).trim(), "hex");
  if (key.length !== 32) throw new Error(`${file} does not hold a key of 32 bytes in hexadecimal`);
  return key;
}

/**
 * The apps' callback signing secrets. HMAC needs the secret itself, so it cannot be stored hashed
 * like application secrets: it is stored encrypted (AES-256-GCM, bound to its app by associated
 * data) under a key that is not in the database, so a copy of the database alone signs nothing.
 */
export class CallbackSecrets {
  private key: Promise<{ key: Buffer; id: string }> | undefined;

  constructor(private readonly source: CallbackKeySource) {}

  private currentKey(): Promise<{ key: Buffer; id: string }> {
    this.key ??= (async () => {
      const key = this.source.secretKey ?? (await keyFromFile(this.source.dataDir));
      // Names the key in stored rows without telling anything of it.
      return { key, id: createHash("sha256").update(key).digest("hex").slice(0, 16) };
    })().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  private async seal(appId: string, secret: string): Promise<SealedSecret> {
    const { key, id } = await this.currentKey();
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, nonce).setAAD(Buffer.from(appId));
    const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return { keyId: id, nonce, ciphertext, tag: cipher.getAuthTag() };
  }

  private async unseal(appId: string, sealed: SealedSecret): Promise<string> {
    const { key, id } = await this.currentKey();
    if (sealed.keyId !== id) {
      throw new CallbackKeyMismatch(
        `the app's callback secret was stored under key ${sealed.keyId}, this process has ${id}: give every process the same CALLBACK_SECRET_KEY`,
      );
    }
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.nonce).setAAD(Buffer.from(appId));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString("utf8");
  }

  /**
   * The app's secret, made when it has none yet: nobody has seen a secret made here, so an app's
   * receivers learn it only from a rotation (docs/messenger-callbacks.md).
   */
  async secretFor(sql: Queryable, appId: string): Promise<string> {
    const stored = await readCallbackSecret(sql, appId);
    if (stored) return this.unseal(appId, stored);
    await storeCallbackSecret(sql, appId, await this.seal(appId, newSecret()), false);
    return this.unseal(appId, (await readCallbackSecret(sql, appId))!);
  }

  /** Gives the app a new secret and answers it: the only time it is shown. */
  async rotate(sql: Queryable, appId: string): Promise<string> {
    const secret = newSecret();
    await storeCallbackSecret(sql, appId, await this.seal(appId, secret), true);
    return secret;
  }
}
