import { isIPv4, isIPv6 } from "node:net";

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

function ipv4Value(text: string): bigint {
  return text.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** IPv6 text (`::`, an embedded dotted quad, a zone) as 128 bits; the text must pass `isIPv6`. */
function ipv6Value(text: string): bigint {
  let bare = text.replace(/%.*$/, "");
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (quad) {
    const v4 = ipv4Value(quad[1]!);
    bare = `${bare.slice(0, quad.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = bare.split("::");
  const headWords = head ? head.split(":") : [];
  const tailWords = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array(8 - headWords.length - tailWords.length).fill("0");
  return [...headWords, ...zeros, ...tailWords].reduce(
    (value, word) => (value << 16n) | BigInt(Number.parseInt(word, 16)),
    0n,
  );
}

/**
 * An address as a resolver or a URL writes it (`[::1]` too), IPv4-mapped IPv6 read as the IPv4
 * address it maps; undefined for text that is not an address.
 */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (isIPv4(bare)) return { family: 4, value: ipv4Value(bare) };
  if (!isIPv6(bare)) return undefined;
  const value = ipv6Value(bare);
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffff_ffffn };
  return { family: 6, value };
}

function block(family: 4 | 6, cidr: string): { family: 4 | 6; base: bigint; bits: number } {
  const [address, bits] = cidr.split("/") as [string, string];
  return { family, base: family === 4 ? ipv4Value(address) : ipv6Value(address), bits: Number(bits) };
}

/**
 * Addresses that are not the public internet's (IANA's special-purpose registries): this host,
 * private and shared networks, link-local, documentation, benchmarking, multicast, reserved.
 */
const INTERNAL_BLOCKS = [
  ...[
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
  ].map((cidr) => block(4, cidr)),
  ...[
    // Unspecified, loopback and the deprecated IPv4-compatible addresses.
    "::/96",
    "64:ff9b:1::/48",
    "100::/64",
    // IETF protocol assignments, Teredo among them.
    "2001::/23",
    "2001:db8::/32",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
  ].map((cidr) => block(6, cidr)),
];

/** IPv6 prefixes that carry an IPv4 address (NAT64, 6to4): the IPv4 address is what is reached. */
const EMBEDDING_BLOCKS = [
  { ...block(6, "64:ff9b::/96"), shift: 0n },
  { ...block(6, "2002::/16"), shift: 80n },
];

function inBlock(address: ParsedAddress, range: { family: 4 | 6; base: bigint; bits: number }): boolean {
  if (address.family !== range.family) return false;
  const shift = BigInt((range.family === 4 ? 32 : 128) - range.bits);
  return address.value >> shift === range.base >> shift;
}

/** Whether an address is loopback, private, link-local or otherwise not on the public internet. */
export function isInternalAddress(text: string): boolean {
  const address = parseAddress(text);
  if (!address) return true;
  if (INTERNAL_BLOCKS.some((range) => inBlock(address, range))) return true;
  const embedding = EMBEDDING_BLOCKS.find((range) => inBlock(address, range));
  if (!embedding) return false;
  const v4 = (address.value >> embedding.shift) & 0xffff_ffffn;
  return isInternalAddress([24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 0xffn)).join("."));
}

/** Whether two texts name the same address (`::ffff:10.0.0.1` and `10.0.0.1`, `[::1]` and `::1`). */
export function sameAddress(a: string, b: string): boolean {
  const left = parseAddress(a);
  const right = parseAddress(b);
  return (
    left !== undefined && right !== undefined && left.family === right.family && left.value === right.value
  );
}
