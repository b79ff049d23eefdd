/** What the engine is asked to do to a process. */
export type EngineCommand =
  | {
      kind: "start";
      owner: string;
      firstAssignee?: string;
      entrance?: string;
      data: Record<string, unknown>;
      actor: string | null;
    }
  | {
      kind: "handle";
      task: string;
      /** On whose behalf it is handled (a candidate, or the system user as `null`). */
      handler: string | null;
      /** Who did it (a delegate, a pickup's collector); the handler when nobody else. */
      actualUser: string | null;
      actionCode?: string;
      actionId?: number;
      remark?: string;
      thing?: string;
      /** 4.5's override of where the process goes next: one step and its users. */
      nextSteps?: string[];
      nextUsers?: string[];
      /** The caller may act for any candidate (a sys token naming the user, or the system user). */
      asSystem?: boolean;
    }
  | { kind: "withdraw"; task: string; user: string }
  | { kind: "suspend"; user: string | null; remark?: string }
  | { kind: "resume"; user: string | null }
  | { kind: "kill"; user: string | null; remark?: string }
  | { kind: "childEnded"; task: string; status: "done" | "killed" }
  | { kind: "reassign"; task: string; candidates: string[]; user: string | null };
