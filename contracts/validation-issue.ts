/** What a failed zod parse reports per broken rule; structural, so callers need not import zod's types. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export interface IssueFieldOptions {
  /** The name of the value that was validated, put before the issue's path. */
  under?: string;
  /** Array positions as `[2]` (`locations[0].pageNo`, as spec 000 names them) rather than `.2`. */
  brackets?: boolean;
}

/** Where an issue points, as the caller wrote it (`meta.token`, `rows.2`). */
export function issueField(issue: ValidationIssue, options: IssueFieldOptions = {}): string {
  let field = options.under ?? "";
  for (const segment of issue.path) {
    if (options.brackets && typeof segment === "number") field += `[${segment}]`;
    else field += field === "" ? String(segment) : `.${String(segment)}`;
  }
  return field;
}

/**
 * A failed validation as one line, `field: message`, from its first issue: callers fix one thing at
 * a time, and the first is where the value stopped making sense. `root` names the whole value.
 */
export function firstIssueMessage(
  issues: readonly ValidationIssue[],
  options: IssueFieldOptions & { root?: string } = {},
): string {
  const issue = issues[0]!;
  return `${issueField(issue, options) || (options.root ?? "(root)")}: ${issue.message}`;
}
