/**
 * The `app_sms` channel: the app message first, the SMS when the app leg is over without reaching
 * the user. The app leg is over on a failure that will not pass (a 4xx, an `errno` other than 0, a
 * refusal) or, for one that may pass (no answer, a 5xx, a 429), once the retry policy's attempts
 * are used up: the user must still be reached. The task's detail keeps both legs:
 * `app: <the app's error>; SMS: sent` (or the SMS's error while that is retried or failed).
 */

/** Whether the app leg of an `app_sms` task ends with this failure, so the SMS goes now. */
export function appLegOver(failure: { retryable: boolean }, lastAttempt: boolean): boolean {
  return !failure.retryable || lastAttempt;
}

const APP = "app: ";
const SMS = "; SMS: ";

/** The detail of a task whose app leg failed with `appError`; `sms` is "sent" or the SMS's error. */
export function bothLegs(appError: string, sms: string): string {
  return `${APP}${appError}${SMS}${sms}`;
}

/** The app leg's error in a detail `bothLegs` wrote, so the SMS's later attempts keep it on record. */
export function appLegOf(detail: string | null): string | undefined {
  if (!detail?.startsWith(APP)) return undefined;
  const end = detail.lastIndexOf(SMS);
  return end < 0 ? undefined : detail.slice(APP.length, end);
}
