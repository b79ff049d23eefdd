/**
 * A tenant's settings as the other capabilities read them: the workflow's reminder (its channel,
 * title and text), undefined when the settings give none.
 */
export { tenantReminder } from "./tenant-store.ts";
