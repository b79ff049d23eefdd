/**
 * The imports of a store from outside its capability's folder that are not yet behind one of that
 * capability's service functions, as `importer → store`. Each is work left: the import rules test
 * fails on any import of a store not listed here, and on a listed one that is gone, so the list
 * only shrinks. It is empty when every route and job handler is a thin edge.
 */
export const STORE_IMPORTS_NOT_YET_BEHIND_A_SERVICE: readonly string[] = [
  "gateway/console/channels.ts → identity/application-store.ts",
  "gateway/console/channels.ts → notifications/channel-store.ts",
  "gateway/console/notifications-views.tsx → notifications/notification-store.ts",
  "gateway/console/notifications.ts → notifications/notification-store.ts",
  "gateway/console/seals-views.tsx → seals/seal-store.ts",
  "gateway/console/seals.ts → identity/tenant-store.ts",
  "gateway/console/seals.ts → seals/seal-store.ts",
  "gateway/notification-schemas.ts → notifications/notification-store.ts",
  "gateway/routes/channel-admin-routes.ts → notifications/channel-store.ts",
  "gateway/routes/notification-routes.ts → notifications/notification-store.ts",
  "gateway/routes/seal-admin-routes.ts → identity/tenant-store.ts",
  "gateway/routes/seal-admin-routes.ts → seals/seal-store.ts",
  "notifications/notification-rules.ts → identity/user-store.ts",
  "workers/notify/deliver-tasks.ts → notifications/delivery-task-store.ts",
  "workers/notify/outcome-writer.ts → notifications/delivery-task-store.ts",
  "workers/notify/pending-sweeper.ts → notifications/delivery-task-store.ts",
  "workers/sign/sign-document.ts → seals/seal-store.ts",
  "workflow/task-reminder.ts → identity/tenant-store.ts",
  "workflow/task-reminder.ts → notifications/notification-store.ts",
];
