import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };

function scryptHash(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** A user password, hashed slowly (scrypt) because people choose guessable ones. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptHash(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join(
    "$",
  );
}

/**
 * What a password is checked against when there is no account, or no password, to check it
 * against: a hash with the current parameters that no password gives (its key is all zeros), so
 * timing does not tell whether the account exists.
 */
const NO_PASSWORD_HASH = [
  "scrypt",
  SCRYPT.N,
  SCRYPT.r,
  SCRYPT.p,
  Buffer.from("no account's salt").toString("base64url"),
  Buffer.alloc(SCRYPT.keyLength).toString("base64url"),
].join("$");

/** Whether `password` is the one `stored` hashes; false, after the same work, when nothing is stored. */
export async function passwordMatches(password: string, stored: string | null): Promise<boolean> {
  const usable = stored !== null && isScryptHash(stored);
  const matches = await scryptMatches(password, usable ? stored : NO_PASSWORD_HASH);
  return usable && matches;
}

function isScryptHash(stored: string): boolean {
  const parts = stored.split("$");
  return parts.length === 6 && parts[0] === "scrypt";
}

async function scryptMatches(password: string, stored: string): Promise<boolean> {
  const [, N, r, p, salt, key] = stored.split("$") as [string, string, string, string, string, string];
  const expected = Buffer.from(key, "base64url");
  const actual = await scryptHash(
    password,
    Buffer.from(salt, "base64url"),
    Number(N),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

/** A new random secret or token: 256 bits, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Client secrets and tokens are 256 random bits, so a fast hash is enough to store them: nobody can
 * guess their way back from it.
 */
export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret).digest();
}

export function secretMatches(secret: string, stored: Buffer | null): boolean {
  if (!stored) return false;
  return timingSafeEqual(hashSecret(secret), stored);
}

/** Compares two strings in time that depends only on their lengths. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Whether an `Authorization` header is `Bearer <token>` for this operator token, compared in constant time. */
export function bearsToken(authorization: string | undefined, token: string): boolean {
  const header = authorization ?? "";
  const given = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : "";
  return given !== "" && sameText(given, token);
}
