import {
  createPrivateKey,
  type JsonWebKey,
  type KeyObject,
  randomUUID,
  sign,
  type webcrypto,
} from "node:crypto";
import { promisify } from "node:util";
import type { JWK, JWTPayload } from "jose";
// Functions by their own paths: jose's entry loads its JWE and JWKS modules too (46 files at start).
import { jwtVerify } from "jose/jwt/verify";
import { exportJWK } from "jose/key/export";
import { generateKeyPair } from "jose/key/generate/keypair";
import { importJWK } from "jose/key/import";
import type { Grant, TokenKind } from "../contracts/scopes.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import { longestAccessTokenTtl } from "./application-store.ts";
import {
  hasCurrentSigningKey,
  insertSigningKey,
  lockSigningKeys,
  readSigningKeys,
  retireSigningKeys,
} from "./signing-key-store.ts";

import type { TokenDenylist } from "./token-denylist.ts";
import type { TokenRefusal } from "./token-refusals.ts";

/**
 * Signs on libuv's thread pool: the signature is most of a token's cost, and made there it neither
 * holds up the event loop's other requests nor leaves the machine's other cores idle.
 */
const signOffThread = promisify(sign) as (
  algorithm: null,
  data: Uint8Array,
  key: KeyObject,
) => Promise<Buffer>;

/** Verified tokens remembered, so a busy client's requests skip the signature check. */
const VERIFIED_CACHE_SIZE = 10_000;
/** Reload keys from the database at most this often, for tokens signed by a key made elsewhere. */
const KEY_RELOAD_INTERVAL_MS = 5000;
/** How often each process looks for a newer signing key. */
const KEY_REFRESH_INTERVAL_MS = 60_000;

/** What an access token says: who it is for, through which grant, with which scopes. */
export interface AccessClaims {
  clientId: string;
  userId: string | undefined;
  tenantId: string | undefined;
  grant: Grant;
  kind: TokenKind;
  scopes: string[];
  jti: string;
  issuedAt: number;
  expiresAt: number;
}

/** A token just signed, with the id and expiry (Unix seconds) it carries. */
export interface IssuedAccessToken {
  token: string;
  jti: string;
  expiresAt: number;
}

interface SigningKey {
  kid: string;
  signingKey: KeyObject;
  encodedHeader: string;
  publicKey: webcrypto.CryptoKey;
  publicJwk: JWK;
}

/**
 * Access tokens are EdDSA-signed JWTs, verifiable by any gateway process without a database round
 * trip. The signing keys live in Postgres, so every process signs and verifies with the same ones.
 */
export class AccessTokens {
  private keys = new Map<string, SigningKey>();
  private current!: SigningKey;
  private readonly verified = new Map<string, AccessClaims>();
  private lastReload = 0;

  private constructor(
    private readonly sql: Sql,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
    private readonly denylist: TokenDenylist,
  ) {}

  static async load(
    sql: Sql,
    options: { issuer: string; ttlSeconds: number; denylist: TokenDenylist },
  ): Promise<AccessTokens> {
    const tokens = AccessTokens.unread(sql, options);
    await tokens.read();
    return tokens;
  }

  /** The tokens' keys before `read`: none, for what is made before the database serves. */
  static unread(
    sql: Sql,
    options: { issuer: string; ttlSeconds: number; denylist: TokenDenylist },
  ): AccessTokens {
    return new AccessTokens(sql, options.issuer, options.ttlSeconds, options.denylist);
  }

  /** Makes a signing key if there is none, and reads the keys, again every minute. */
  async read(): Promise<void> {
    await this.ensureKey();
    await this.reloadKeys();
    // Every process picks up a key rotated elsewhere within a minute; until then tokens it signs
    // with the retired key still verify, since retired keys stay published.
    setInterval(() => void this.reloadKeys().catch(() => {}), KEY_REFRESH_INTERVAL_MS).unref();
  }

  /** How long a token of `application` lives: its own setting, or the platform's. */
  lifetimeFor(application: { accessTokenTtlSeconds: number | null }): number {
    return application.accessTokenTtlSeconds ?? this.ttlSeconds;
  }

  /** A signed token for `claims`, living `ttlSeconds`. */
  async issue(
    claims: Omit<AccessClaims, "jti" | "issuedAt" | "expiresAt">,
    ttlSeconds = this.ttlSeconds,
  ): Promise<string> {
    return (await this.issueWithId(claims, ttlSeconds)).token;
  }

  /**
   * A signed token with its jti and expiry, for revoking it later. Signs with node:crypto directly: a
   * compact JWS is two base64url JSON parts and a signature, and WebCrypto's Ed25519 (through jose)
   * takes three times as long per token. Verification stays with jose, which checks every claim.
   */
  async issueWithId(
    claims: Omit<AccessClaims, "jti" | "issuedAt" | "expiresAt">,
    ttlSeconds = this.ttlSeconds,
  ): Promise<IssuedAccessToken> {
    const key = this.current;
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: this.issuer,
      sub: claims.userId ?? claims.clientId,
      client_id: claims.clientId,
      scope: claims.scopes.join(" "),
      gty: claims.grant,
      kind: claims.kind,
      ...(claims.tenantId ? { tid: claims.tenantId } : {}),
      jti: randomUUID(),
      iat: now,
      exp: now + ttlSeconds,
    };
    const input = `${key.encodedHeader}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
    const signature = await signOffThread(null, Buffer.from(input), key.signingKey);
    return { token: `${input}.${signature.toString("base64url")}`, jti: payload.jti, expiresAt: payload.exp };
  }

  /**
   * The token's claims, or why it is refused (a string: claims are an object). A token verified
   * before is answered without a promise: most requests carry one.
   */
  verify(token: string): AccessClaims | TokenRefusal | Promise<AccessClaims | TokenRefusal> {
    const remembered = this.rememberedClaims(token);
    if (remembered === "unknown")
      return this.checkedClaims(token).then((claims) => this.unlessRefused(claims));
    return this.unlessRefused(remembered);
  }

  private unlessRefused(claims: AccessClaims | TokenRefusal): AccessClaims | TokenRefusal {
    if (typeof claims === "string") return claims;
    return this.denylist.refusal(claims) ?? claims;
  }

  /** A token verified before: its claims while it lives, "expired" once it expired. */
  private rememberedClaims(token: string): AccessClaims | "expired" | "unknown" {
    const remembered = this.verified.get(token);
    if (!remembered) return "unknown";
    if (remembered.expiresAt * 1000 > Date.now()) return remembered;
    this.verified.delete(token);
    return "expired";
  }

  /** The claims of a token this platform signed that has not expired, refused or not (for revoking it). */
  async signedClaims(token: string): Promise<AccessClaims | undefined> {
    const claims = await this.checkedClaims(token);
    return typeof claims === "string" ? undefined : claims;
  }

  /** The claims of a token whose signature and expiry are good, or why they are not. */
  private async checkedClaims(token: string): Promise<AccessClaims | TokenRefusal> {
    const remembered = this.rememberedClaims(token);
    if (remembered !== "unknown") return remembered;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header) => this.publicKeyFor(header.kid), {
        issuer: this.issuer,
        algorithms: ["EdDSA"],
        typ: "at+jwt",
      }));
    } catch (error) {
      return refusalOf(error);
    }
    const claims: AccessClaims = {
      clientId: String(payload.client_id),
      userId: payload.kind === "user" ? payload.sub : undefined,
      tenantId: typeof payload.tid === "string" ? payload.tid : undefined,
      grant: payload.gty as Grant,
      kind: payload.kind as TokenKind,
      scopes: String(payload.scope ?? "")
        .split(" ")
        .filter(Boolean),
      jti: String(payload.jti),
      issuedAt: Number(payload.iat),
      expiresAt: Number(payload.exp),
    };
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, claims);
    return claims;
  }

  /** The public keys as a JSON Web Key Set, for clients and resource servers that verify tokens. */
  jwks(): { keys: JWK[] } {
    return { keys: [...this.keys.values()].map((key) => key.publicJwk) };
  }

  private async publicKeyFor(kid: string | undefined): Promise<webcrypto.CryptoKey> {
    let key = kid ? this.keys.get(kid) : undefined;
    if (!key && Date.now() - this.lastReload > KEY_RELOAD_INTERVAL_MS) {
      await this.reloadKeys();
      key = kid ? this.keys.get(kid) : undefined;
    }
    if (!key) throw new UnknownSigningKey();
    return key.publicKey;
  }

  /** Makes the first signing key when there is none; processes starting together make one. */
  private async ensureKey(): Promise<void> {
    await transaction(this.sql, async (tx) => {
      await lockSigningKeys(tx);
      if (!(await hasCurrentSigningKey(tx))) await makeSigningKey(tx);
    });
  }

  /** Reads the signing keys again, after a rotation made by this process. */
  reload(): Promise<void> {
    return this.reloadKeys();
  }

  private async reloadKeys(): Promise<void> {
    this.lastReload = Date.now();
    // Retired keys verify until the longest-lived token they signed has expired.
    const rows = await readSigningKeys(this.sql, await longestAccessTokenTtl(this.sql, this.ttlSeconds));
    const keys = new Map<string, SigningKey>();
    for (const row of rows) {
      const key: SigningKey = {
        kid: row.kid,
        signingKey: createPrivateKey({ key: row.private_jwk as JsonWebKey, format: "jwk" }),
        encodedHeader: Buffer.from(JSON.stringify({ alg: "EdDSA", kid: row.kid, typ: "at+jwt" })).toString(
          "base64url",
        ),
        publicKey: (await importJWK(row.public_jwk, "EdDSA")) as webcrypto.CryptoKey,
        publicJwk: row.public_jwk,
      };
      keys.set(row.kid, key);
      if (!row.retired_at) this.current = key;
    }
    this.keys = keys;
  }
}

class UnknownSigningKey extends Error {
  constructor() {
    super("unknown signing key");
  }
}

/**
 * Why jose refused a token, read from its error codes: a signature that fails, an algorithm other
 * than ours or a key we do not have is a bad signature; a signed token that expired is expired;
 * anything else (its form, its issuer, its type) is malformed.
 */
function refusalOf(error: unknown): TokenRefusal {
  if (error instanceof UnknownSigningKey) return "bad-signature";
  switch ((error as { code?: unknown } | null)?.code) {
    case "ERR_JWT_EXPIRED":
      return "expired";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "bad-signature";
    default:
      return "malformed";
  }
}

/** A new Ed25519 key pair, stored as the current signing key. */
async function makeSigningKey(tx: Queryable): Promise<void> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "EdDSA" };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "EdDSA", use: "sig" };
  await insertSigningKey(tx, kid, privateJwk, publicJwk);
}

/**
 * Retires the current signing key and makes a new one. Tokens signed with the retired key keep
 * verifying (its public half stays in the JWKS) until they expire.
 */
export async function rotateSigningKey(sql: Sql): Promise<void> {
  await transaction(sql, async (tx) => {
    await lockSigningKeys(tx);
    await retireSigningKeys(tx);
    await makeSigningKey(tx);
  });
}
