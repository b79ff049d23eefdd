import type { Child, PropsWithChildren } from "hono/jsx";
import type { Flash } from "./sessions.ts";

/** What every signed-in page knows of its session: the form token and a message left for it. */
export interface PageSession {
  csrf: string;
  flash?: Flash | undefined;
}

/** The console's sections, in the order of its navigation, with what each is for (the dashboard lists them). */
export const SECTIONS = [
  ["/console", "Dashboard", "where to go, and the queues holding dead letters"],
  ["/console/tenants", "Tenants", "the tenants, their settings, tags, memberships and statistics"],
  ["/console/applications", "Applications", "approve scopes and grants, disable, give a new secret"],
  ["/console/users", "Users", "a tenant's accounts: find, disable, enable"],
  ["/console/access", "Access", "tenant administrators and who may start each workflow app"],
  ["/console/seals", "Seals", "see, upload and withdraw seals"],
  ["/console/channels", "Channels", "edit a notification channel, send a test message"],
  ["/console/feeds", "Feeds", "a tenant's enterprise feed: settings, runs, a run now"],
  ["/console/queues", "Queues", "depth, consumers, dead letters: replay or purge; the outbox relay's lag"],
  ["/console/callbacks", "Callbacks", "callbacks that never got through: see, replay"],
  ["/console/notifications", "Notifications", "a notification's delivery tasks"],
  ["/console/workflows", "Workflows", "apps and versions, diagrams, processes, stuck to-dos"],
] as const;

export type Section = (typeof SECTIONS)[number][0];

function Document(props: PropsWithChildren<{ title: string }>) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${props.title} · Operator console`}</title>
        <link rel="stylesheet" href="/console/style.css" />
      </head>
      {props.children}
    </html>
  );
}

/** The hidden field carrying the session's CSRF token, in every form that changes anything. */
export function CsrfField(props: { session: PageSession }) {
  return <input type="hidden" name="csrf" value={props.session.csrf} />;
}

/** A page of the signed-in console: navigation, the message a form left, then the page. */
export function Layout(props: PropsWithChildren<{ title: string; section: Section; session: PageSession }>) {
  const { flash } = props.session;
  return (
    <Document title={props.title}>
      <body>
        <header>
          <a class="brand" href="/console">
            Operator console
          </a>
          <nav aria-label="sections">
            {SECTIONS.map(([href, name]) => (
              <a href={href} aria-current={href === props.section ? "page" : undefined}>
                {name}
              </a>
            ))}
          </nav>
          <form method="post" action="/console/sign-out" class="sign-out">
            <CsrfField session={props.session} />
            <button type="submit">Sign out</button>
          </form>
        </header>
        <main>
          <h1>{props.title}</h1>
          {flash ? (
            <p class={`flash ${flash.kind}`} role={flash.kind === "error" ? "alert" : "status"}>
              {flash.text}
            </p>
          ) : null}
          {props.children}
        </main>
      </body>
    </Document>
  );
}

/** A page outside a session: the sign-in form, or an error before signing in. */
export function BarePage(props: PropsWithChildren<{ title: string }>) {
  return (
    <Document title={props.title}>
      <body class="bare">
        <main>{props.children}</main>
      </body>
    </Document>
  );
}

/** The link to a list's next page, when there is one. */
export function Pager(props: { next: string | null; href: (after: string) => string }) {
  if (props.next === null) return null;
  return (
    <p class="pager">
      <a href={props.href(props.next)} rel="next">
        Next page →
      </a>
    </p>
  );
}

/** A form of one button that POSTs, with hidden fields and the CSRF token. */
export function ActionForm(props: {
  session: PageSession;
  action: string;
  label: string;
  fields?: Record<string, string>;
  danger?: boolean;
}) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField session={props.session} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.danger ? "danger" : undefined}>
        {props.label}
      </button>
    </form>
  );
}

/** The form that picks the tenant a page shows (by its domain). */
export function TenantPicker(props: { action: string; tenant: string | undefined }) {
  return (
    <form method="get" action={props.action} class="search">
      <label>
        Tenant (domain)
        <input type="text" name="tenant" value={props.tenant ?? ""} required maxlength={253} />
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

/** A list of words (scopes, grants), or what an empty or missing one means. */
export function Words(props: { words: readonly string[] | null; none: string }) {
  if (!props.words || props.words.length === 0) return <span class="muted">{props.none}</span>;
  return (
    <ul class="words">
      {props.words.map((word) => (
        <li>{word}</li>
      ))}
    </ul>
  );
}

/** A yes/no cell. */
export function Flag(props: { on: boolean; yes: string; no?: string }) {
  return props.on ? <strong class="flag">{props.yes}</strong> : <span class="muted">{props.no ?? "—"}</span>;
}

/** A time as ISO text, or a dash. */
export function When(props: { at: Date | string | null | undefined }) {
  if (props.at === null || props.at === undefined) return <span class="muted">—</span>;
  const text = typeof props.at === "string" ? props.at : props.at.toISOString();
  return <time datetime={text}>{text.replace("T", " ").replace(/\.\d+Z$/, "Z")}</time>;
}

/** The page of a failure: what went wrong, inside the console when signed in. */
export function ErrorView(props: { status: number; message: string; session: PageSession | undefined }) {
  const body: Child = (
    <>
      <p class="flash error" role="alert">
        {props.message}
      </p>
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </>
  );
  const title = props.status === 404 ? "Not found" : props.status === 403 ? "Refused" : "Failed";
  if (!props.session) {
    return (
      <BarePage title={title}>
        <h1>{title}</h1>
        {body}
      </BarePage>
    );
  }
  return (
    <Layout title={title} section="/console" session={{ csrf: props.session.csrf }}>
      {body}
    </Layout>
  );
}
