import { lookup as systemLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { isInternalAddress, parseAddress } from "./internal-address.ts";

/** A resolved address of a name, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** Why a URL given by a caller may not be reached: for the log, never for the caller's answer. */
export class UnreachableAddress extends Error {
  constructor(
    message: string,
    /** Refused for what it is (an internal address not allowed), not for a failure that may pass. */
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/**
 * The address to connect to for `url` when the platform fetches or posts to a URL a caller chose:
 * the URL's own address, or the first of its name's when every address the name has may be reached.
 * An internal address (loopback, private, link-local, …) may be reached only when
 * `mayReachInternal` says so; `refusal` says why not, for the message (`not allowed by …`). The caller
 * connects to the address answered (`pinnedLookup`), since a second resolution could answer another.
 */
export async function reachableAddress(
  url: URL,
  resolve: Resolve,
  mayReachInternal: (address: string) => boolean,
  refusal: string,
): Promise<ResolvedAddress> {
  const literal = parseAddress(url.hostname);
  if (literal) {
    const address = url.hostname.replace(/^\[|\]$/g, "");
    if (isInternalAddress(address) && !mayReachInternal(address))
      throw new UnreachableAddress(`${address} is an internal address ${refusal}`, true);
    return { address, family: literal.family };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(url.hostname);
  } catch (error) {
    throw new UnreachableAddress(`${url.hostname} does not resolve: ${(error as Error).message}`, false);
  }
  if (addresses.length === 0) throw new UnreachableAddress(`${url.hostname} has no address`, false);
  const internal = addresses.find(({ address }) => isInternalAddress(address) && !mayReachInternal(address));
  if (internal) {
    throw new UnreachableAddress(
      `${url.hostname} resolves to ${internal.address}, an internal address ${refusal}`,
      true,
    );
  }
  return addresses[0]!;
}

/** A connection's lookup that answers `pinned` whatever it is asked, so it reaches the address checked. */
export function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}
