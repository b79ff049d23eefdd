import { randomBytes } from "node:crypto";
import { sameText } from "../../runtime/secrets.ts";

/** Idle time after which an operator signs in again. */
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000;
/** Sessions held at once; past it, the one idle longest is forgotten. */
const MAX_SESSIONS = 1000;

/** A message for the next page the operator sees, after a form redirected. */
export interface Flash {
  kind: "done" | "error";
  text: string;
}

/** An operator's console session: the form token its POSTs carry, and when it lapses. */
export interface ConsoleSession {
  /** The CSRF token, sent in a hidden field of every form and checked on every POST. */
  readonly csrf: string;
  expiresAt: number;
  flash?: Flash;
}

/**
 * The console's sessions, held in this gateway process's memory: a random id (the cookie) names
 * a session, never the operator token. Behind a load balancer, operators stay on one gateway
 * (sticky sessions) or sign in again on another; a restart signs everyone out.
 */
export class ConsoleSessions {
  readonly #sessions = new Map<string, ConsoleSession>();

  constructor(
    private readonly idleMs = SESSION_IDLE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session, with its id for the cookie. */
  open(): { id: string; session: ConsoleSession } {
    this.#sweep();
    const id = randomBytes(32).toString("base64url");
    const session: ConsoleSession = { csrf: randomBytes(32).toString("base64url"), expiresAt: 0 };
    this.#touch(id, session);
    return { id, session };
  }

  /** The live session of a cookie's id, its idle time started again; undefined when there is none. */
  find(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt <= this.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    this.#touch(id, session);
    return session;
  }

  close(id: string | undefined): void {
    if (id) this.#sessions.delete(id);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Kept in the order of use, so the first is the one idle longest. */
  #touch(id: string, session: ConsoleSession): void {
    session.expiresAt = this.now() + this.idleMs;
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
  }

  #sweep(): void {
    const now = this.now();
    for (const [id, session] of this.#sessions) {
      if (session.expiresAt > now && this.#sessions.size < MAX_SESSIONS) break;
      this.#sessions.delete(id);
    }
  }
}

/** Whether a form's token is the session's, compared in constant time. */
export function csrfMatches(session: ConsoleSession, given: string | undefined): boolean {
  return given !== undefined && given !== "" && sameText(given, session.csrf);
}
