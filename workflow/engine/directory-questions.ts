import type { Assignee } from "../../contracts/workflow-definition.ts";

/** The department part of a position that stands for each department the initiator holds a post in. */
export const INITIATOR_DEPARTMENT = "{initiator}";

/** Facts an assignee rule may depend on. */
export interface AssignmentFacts {
  owner: string;
  data: Record<string, unknown>;
  /** The latest handler of each step so far. */
  handlers: ReadonlyMap<string, string>;
}

/** A position `dept:post`; `*` in either part matches every department or post. */
export interface PositionParts {
  dept: string;
  post: string;
}

/** What a step's assignee rules leave to the directory: the users only the tenant's records name. */
export interface DirectoryQuestion {
  /** Accounts or user ids, in the order named. */
  codes: string[];
  positions: PositionParts[];
  /** Posts whose holders count in each department the initiator holds a post in. */
  initiatorPosts: string[];
  initiator: string;
}

/** The directory's answers so far, by `questionKey`: its enabled users, codes' first, then holders. */
export type DirectoryAnswers = ReadonlyMap<string, readonly string[]>;

/** Two questions that ask the same have the same key. */
export function questionKey(question: DirectoryQuestion): string {
  const positions = question.positions.map(({ dept, post }) => `${dept}:${post}`);
  return JSON.stringify([question.codes, positions, question.initiatorPosts, question.initiator]);
}

/**
 * Thrown to stop a command's run at questions the directory has not answered yet; `applyCommand`
 * hands them back as data, and the caller applies the command again with the answers.
 */
export class OpenQuestions {
  constructor(readonly questions: DirectoryQuestion[]) {}
}

/**
 * The users a step's assignee rules name, in a stable order, without duplicates: the initiator and
 * earlier handlers as the process knows them, then the directory's answer for accounts, data
 * fields and positions. `undefined` while that answer is missing, its question added to `asked`.
 */
export function assignedUsers(
  assignees: readonly Assignee[],
  facts: AssignmentFacts,
  answers: DirectoryAnswers,
  asked: DirectoryQuestion[],
): string[] | undefined {
  const users: string[] = [];
  const question: DirectoryQuestion = {
    codes: [],
    positions: [],
    initiatorPosts: [],
    initiator: facts.owner,
  };
  for (const assignee of assignees) {
    if ("position" in assignee) {
      // The definition's schema holds a position to exactly one colon, with no spaces.
      const [dept, post] = assignee.position.split(":") as [string, string];
      if (dept === INITIATOR_DEPARTMENT) question.initiatorPosts.push(post);
      else question.positions.push({ dept, post });
    } else if ("accounts" in assignee) question.codes.push(...assignee.accounts);
    else if ("initiator" in assignee) users.push(facts.owner);
    else if ("handlerOf" in assignee) {
      const handler = facts.handlers.get(assignee.handlerOf);
      if (handler) users.push(handler);
    } else {
      const value = facts.data[assignee.field];
      const named = Array.isArray(value) ? value : [value];
      question.codes.push(
        ...named.filter((item): item is string => typeof item === "string" && item.length > 0),
      );
    }
  }
  const asksNothing =
    question.codes.length === 0 && question.positions.length === 0 && question.initiatorPosts.length === 0;
  const answer = asksNothing ? [] : answers.get(questionKey(question));
  if (answer === undefined) {
    asked.push(question);
    return undefined;
  }
  return [...new Set([...users, ...answer])];
}
