/**
 * Values remembered for a few seconds, so a busy caller costs one lookup per key and window
 * instead of one per request; a change made elsewhere takes effect within the window. Misses
 * (undefined) are remembered too, so a flood of made-up keys costs no more. The oldest entry
 * makes room once `maxEntries` is reached.
 */
export class TtlCache<Value> {
  private readonly entries = new Map<string, { value: Value | undefined; until: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  async get(key: string, load: () => Promise<Value | undefined>): Promise<Value | undefined> {
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.until > now) return cached.value;
    const generation = this.generation;
    const value = await load();
    // A value read before a clear() may be what the clear was for.
    if (generation !== this.generation) return value;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  /** Forgets everything, after the underlying rows changed. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
