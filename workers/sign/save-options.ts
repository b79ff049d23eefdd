/** How sealed PDFs are written, signed or not: in one go, for the same reason documents are parsed in one go. */
export const SAVE_OPTIONS = {
  useObjectStreams: false,
  updateFieldAppearances: false,
  objectsPerTick: Number.POSITIVE_INFINITY,
} as const;
