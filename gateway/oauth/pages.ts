import { scopeNamed } from "../../contracts/scopes.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; }
  main { max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px;
         box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.25rem; margin-top: 0; }
  label { display: block; margin: 1rem 0 .25rem; }
  input[type=text], input[type=password] { width: 100%; padding: .5rem; box-sizing: border-box; }
  button { margin-top: 1.25rem; padding: .6rem 1.2rem; }
  .error { color: #b00020; }
  ul { padding-left: 1.2rem; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

export function loginPage(options: { requestId: string; applicationName: string; error?: string }): string {
  return page(
    "Sign in",
    `<h1>Sign in to continue to ${escapeHtml(options.applicationName)}</h1>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ""}
<form method="post" action="/oauth2/authorize/login">
  <input type="hidden" name="request" value="${escapeHtml(options.requestId)}">
  <label for="username">Account</label>
  <input type="text" id="username" name="username" autocomplete="username" required>
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(options: {
  requestId: string;
  applicationName: string;
  userName: string;
  scopes: readonly string[];
}): string {
  const items = options.scopes
    .map(
      (name) =>
        `<li><strong>${escapeHtml(name)}</strong>: ${escapeHtml(scopeNamed(name)?.meaning ?? "")}</li>`,
    )
    .join("\n");
  return page(
    "Allow access",
    `<h1>${escapeHtml(options.applicationName)} asks to act for ${escapeHtml(options.userName)}</h1>
<p>It will be able to:</p>
<ul>${items}</ul>
<form method="post" action="/oauth2/authorize/consent">
  <input type="hidden" name="request" value="${escapeHtml(options.requestId)}">
  <button type="submit" name="decision" value="allow">Allow</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page(
    "Authorization failed",
    `<h1>Authorization failed</h1><p class="error" role="alert">${escapeHtml(message)}</p>`,
  );
}
