import { parseAddress, sameAddress } from "./internal-address.ts";

/** One entry of EXPORT_TEMPLATE_HOSTS: a name, `*.` and a domain, or an address, with a port or not. */
export interface HostEntry {
  /** As a URL writes its host: lower case, an IPv6 address in brackets. */
  host: string;
  /** `*.example.edu`: the domain's subdomains, not the domain itself. */
  wildcard: boolean;
  /** The host is an IP address. */
  address: boolean;
  /** Unset: the default port of the URL's scheme (80 for http, 443 for https). */
  port: number | undefined;
}

const ENTRY = /^(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

/** An entry as the operator writes it, or undefined when it is not one. */
export function parseHostEntry(text: string): HostEntry | undefined {
  const match = ENTRY.exec(text.trim());
  if (!match) return undefined;
  const [, star, name, portText] = match as unknown as [
    string,
    string | undefined,
    string,
    string | undefined,
  ];
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65_535)) return undefined;
  let host: string;
  try {
    // The host as URLs normalise it, so `127.1` and `[0:0::1]` compare as the URL's hostname does.
    host = new URL(`http://${name}`).hostname;
  } catch {
    return undefined;
  }
  const address = parseAddress(host) !== undefined;
  if (address && star) return undefined;
  return { host, wildcard: star !== undefined, address, port };
}

/** The port a URL reaches: its own, or its scheme's default. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

function portMatches(entry: HostEntry, url: URL): boolean {
  return entry.port === undefined ? url.port === "" : entry.port === portOf(url);
}

/**
 * The hosts and ports templates may be fetched from. A URL is allowed when its host matches an
 * entry (a name exactly, or a subdomain of a `*.` entry; an address only by an address entry)
 * and so does its port.
 */
export class HostAllowlist {
  private readonly entries: HostEntry[];

  constructor(entries: readonly string[]) {
    this.entries = entries.map((text) => {
      const entry = parseHostEntry(text);
      if (!entry) throw new Error(`not a host entry: ${JSON.stringify(text)}`);
      return entry;
    });
  }

  allows(url: URL): boolean {
    const isAddress = parseAddress(url.hostname) !== undefined;
    return this.entries.some((entry) => {
      if (!portMatches(entry, url)) return false;
      if (entry.address || isAddress)
        return entry.address && isAddress && sameAddress(entry.host, url.hostname);
      return entry.wildcard ? url.hostname.endsWith(`.${entry.host}`) : url.hostname === entry.host;
    });
  }

  /** Whether `address`, on the URL's port, is listed itself: how an internal address is allowed. */
  listsAddress(address: string, url: URL): boolean {
    return this.entries.some(
      (entry) => entry.address && sameAddress(entry.host, address) && portMatches(entry, url),
    );
  }
}
