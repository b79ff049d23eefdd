import type { JWK } from "jose";
import type { Queryable } from "../runtime/database.ts";

const KEY_LOCK = 7_301_003;

/** Holds the signing-key lock until the transaction ends, so processes make one key at a time. */
export async function lockSigningKeys(tx: Queryable): Promise<void> {
  await tx`select pg_advisory_xact_lock(${KEY_LOCK})`;
}

/** Whether a signing key is current (not retired). */
export async function hasCurrentSigningKey(sql: Queryable): Promise<boolean> {
  const [existing] = await sql`select kid from signing_keys where retired_at is null limit 1`;
  return existing !== undefined;
}

export interface SigningKeyRow {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  retired_at: Date | null;
}

/** The current key and those retired less than `retiredSeconds` ago, oldest first. */
export async function readSigningKeys(sql: Queryable, retiredSeconds: number): Promise<SigningKeyRow[]> {
  return await sql<SigningKeyRow[]>`
    select kid, private_jwk, public_jwk, retired_at from signing_keys
    where retired_at is null or retired_at > now() - make_interval(secs => ${retiredSeconds})
    order by created_at`;
}

export async function insertSigningKey(
  sql: Queryable,
  kid: string,
  privateJwk: JWK,
  publicJwk: JWK,
): Promise<void> {
  await sql`insert into signing_keys (kid, private_jwk, public_jwk) values (${kid}, ${sql.json(privateJwk as never)}, ${sql.json(publicJwk as never)})`;
}

/** Retires the current signing key. */
export async function retireSigningKeys(sql: Queryable): Promise<void> {
  await sql`update signing_keys set retired_at = now() where retired_at is null`;
}
