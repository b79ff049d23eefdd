import { generateKeyPair, randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Logger } from "../../runtime/logger.ts";

// Off the main thread: finding an RSA key takes tens to hundreds of milliseconds.
const generateKeyPairAsync = promisify(generateKeyPair);

export interface SigningCertificate {
  p12: Buffer;
  passphrase: string;
}

/**
 * The platform's signing certificate: the operator's PKCS#12 file, or else a self-signed one made
 * once under DATA_DIR (several workers starting together agree on one: it is created with a hard
 * link, which fails when another process made it first).
 */
export async function loadSigningCertificate(
  options: { p12File: string | undefined; passphrase: string; dataDir: string },
  log: Logger,
): Promise<SigningCertificate> {
  if (options.p12File) return { p12: await readFile(options.p12File), passphrase: options.passphrase };
  const directory = join(options.dataDir, "signing");
  const file = join(directory, "self-signed.p12");
  const existing = await readFile(file).catch(() => undefined);
  if (existing) return { p12: existing, passphrase: "" };
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(temporary, await selfSignedP12(), { mode: 0o600 });
  try {
    await link(temporary, file);
    log.warn({ file }, "no SIGN_P12_FILE: made a self-signed signing certificate; readers will not trust it");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  return { p12: await readFile(file), passphrase: "" };
}

async function selfSignedP12(): Promise<Buffer> {
  // Loaded only here: a start that finds its certificate made need not load node-forge.
  const { default: forge } = await import("node-forge");
  const { privateKey, publicKey } = await generateKeyPairAsync("rsa", { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: "pkcs1", format: "pem" }).toString());
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(
    publicKey.export({ type: "spki", format: "pem" }).toString(),
  );
  certificate.serialNumber = `01${randomBytes(8).toString("hex")}`;
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
  const subject = [
    { name: "commonName", value: "Open Platform seal service (self-signed)" },
    { name: "organizationName", value: "Open Platform" },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, nonRepudiation: true },
  ]);
  certificate.sign(key, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [certificate], "", { algorithm: "3des" });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), "binary");
}
