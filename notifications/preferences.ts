/**
 * A user's preference sets (spec 001 1.3-1.5): the built-in ones and free ones, read, changed
 * under a row lock, and shown with the built-in sets always present.
 */
export {
  changePreference,
  checkPreferenceKey,
  type Preferences,
  preferencesOf,
  preferenceView,
} from "./preference-store.ts";
