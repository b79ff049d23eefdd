/** How long an answer is kept: spec 001 8.x caches statistics for 2 minutes. */
export const STATISTICS_TTL_MS = 120_000;
/** Answers kept at most; the oldest go first. An answer is a few hundred bytes. */
const MOST_ANSWERS = 10_000;

/**
 * The statistics' answers of one gateway process, by tenant and question, for 2 minutes from when
 * they were counted, and forgotten by nothing but time: a process started, a setting switched, are
 * seen by a question after at most that long. Per process, not shared: an answer counted from the
 * roll-ups costs a few milliseconds, about what fetching it from a shared store would, so sharing
 * would save only the first question of each gateway in each 2 minutes. Concurrent identical
 * questions share one count.
 */
export class StatisticsCache {
  /** The clock the 2 minutes are measured by (replaced by tests). */
  now: () => number = Date.now;
  private readonly answers = new Map<string, { until: number; answer: Promise<unknown> }>();

  constructor(private readonly ttlMs = STATISTICS_TTL_MS) {}

  answer<T>(question: string, count: () => Promise<T>): Promise<T> {
    const now = this.now();
    const kept = this.answers.get(question);
    if (kept && kept.until > now) return kept.answer as Promise<T>;
    this.answers.delete(question);
    if (this.answers.size >= MOST_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
    const answer = count();
    this.answers.set(question, { until: now + this.ttlMs, answer });
    // A failed count is not kept: the next question counts again.
    answer.catch(() => {
      if (this.answers.get(question)?.answer === answer) this.answers.delete(question);
    });
    return answer;
  }
}
