import { authorizationCodeToken, issueToken } from "./tokens.ts";

/** What the spec-001 workflow suites share: two tenants, the portal application, its sign-ins. */
export const WORKFLOW_PASSWORD = "a-password-for-everyone";
export const PORTAL_REDIRECT = "https://portal.example.edu/callback";

export const WORKFLOW_TENANTS = [
  { domain: "example.edu", name: "Example University" },
  { domain: "other.edu", name: "Other College" },
];

/** `portal`, the enterprise application of example.edu the suites call the API as. */
export function portalApplication(secret: string, scopes: readonly string[]) {
  return {
    id: "portal",
    secret,
    name: "Portal",
    type: "enterprise",
    tenant: "example.edu",
    redirectUris: [PORTAL_REDIRECT],
    scopes,
  };
}

/** `other`, an application of the other tenant: what it reads must never be example.edu's. */
export function otherTenantApplication(secret: string, scopes: readonly string[]) {
  return { id: "other", secret, name: "Other", type: "enterprise", tenant: "other.edu", scopes };
}

/** A client-credentials token of the application `id`. */
export function sysToken(baseUrl: string, id: string, secret: string, scope: string): Promise<string> {
  return issueToken(baseUrl, { id, secret }, { grant_type: "client_credentials", scope });
}

/**
 * Each account's user token, signed in through the portal's login page (or another application's
 * of the same secret) as a browser would.
 */
export async function portalUserTokens(
  baseUrl: string,
  secret: string,
  accounts: readonly string[],
  scope: string,
  application: { id: string; redirectUri: string } = { id: "portal", redirectUri: PORTAL_REDIRECT },
): Promise<Record<string, string>> {
  const client = { ...application, secret };
  const tokens: Record<string, string> = {};
  for (const account of accounts) {
    tokens[account] = await authorizationCodeToken(
      baseUrl,
      client,
      { account, password: WORKFLOW_PASSWORD },
      scope,
    );
  }
  return tokens;
}
