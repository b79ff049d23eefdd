import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/** Longest address kept: an IPv6 address with a zone fits, a forged header does not. */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The address a request came from: the connection's peer, or behind `trustedHops` proxies the
 * entry of `X-Forwarded-For` that many hops back (each proxy appends the address it was reached
 * from, so entries further left are the client's own word and are never believed).
 */
export function clientAddress(c: Context, trustedHops: number): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const peer = unmapped(incoming?.socket.remoteAddress ?? "unknown");
  if (trustedHops === 0) return peer;
  const forwarded = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const hops = [peer, ...forwarded.reverse()];
  return unmapped(hops[Math.min(trustedHops, hops.length - 1)]!).slice(0, MAX_ADDRESS_LENGTH);
}

/** `::ffff:10.0.0.1` is 10.0.0.1, however the socket was opened. */
function unmapped(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}
