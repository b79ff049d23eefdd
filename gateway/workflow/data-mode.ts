/**
 * Spec 001 serves one workflow API twice: over live data under `/apis/v2` and over test data under
 * `/apis/v2d`. The gateway builds it once per mode and mounts each at its base.
 */
export interface WorkflowDataMode {
  readonly base: "/apis/v2" | "/apis/v2d";
  readonly test: boolean;
}

export const WORKFLOW_DATA_MODES: readonly WorkflowDataMode[] = [
  { base: "/apis/v2", test: false },
  { base: "/apis/v2d", test: true },
];

/** Operation ids are unique across the document: the test-data twin of each gets a suffix. */
export function workflowOperationId(mode: WorkflowDataMode, name: string): string {
  return mode.test ? `${name}TestData` : name;
}
