import { DELIVERY_BATCH } from "../../contracts/jobs.ts";
import type { TaskOutcome } from "../../notifications/delivery-service.ts";
import { type GatedSender, WRITE_BATCH_PER_SEND } from "./gated-sender.ts";

/**
 * How long an outcome waits for others to share its write when its channel's batch does not fill:
 * short beside a send, since the send keeps its place meanwhile, yet it groups a slow trickle.
 */
const OUTCOME_DELAY_MS = 20;

interface Waiting {
  outcome: TaskOutcome;
  since: number;
  written: () => void;
  failed: (error: unknown) => void;
}

/**
 * Writes delivery outcomes soon after they become known, many to a statement: a write starts once
 * `batchSize` outcomes wait, or once the oldest has waited `maxDelayMs`; one write runs at a time,
 * and outcomes arriving meanwhile go in the next. `record` resolves once its outcome is written.
 */
export class OutcomeWriter {
  private waiting: Waiting[] = [];
  private writing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (outcomes: TaskOutcome[]) => Promise<void>,
    private readonly batchSize: number,
    private readonly maxDelayMs: number,
  ) {}

  record(outcome: TaskOutcome): Promise<void> {
    return new Promise((written, failed) => {
      this.waiting.push({ outcome, since: performance.now(), written, failed });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.waiting.length === 0) return;
    if (this.waiting.length >= this.batchSize) {
      clearTimeout(this.timer);
      this.timer = undefined;
      void this.writeWaiting();
    } else if (this.timer === undefined) {
      const due = this.waiting[0]!.since + this.maxDelayMs - performance.now();
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          void this.writeWaiting();
        },
        Math.max(0, due),
      );
    }
  }

  private async writeWaiting(): Promise<void> {
    this.writing = true;
    const batch = this.waiting;
    this.waiting = [];
    try {
      await this.write(batch.map((entry) => entry.outcome));
      for (const entry of batch) entry.written();
    } catch (error) {
      for (const entry of batch) entry.failed(error);
    }
    this.writing = false;
    this.schedule();
  }
}

/**
 * The writers of a worker's outcomes: one per channel sender, writing the outcomes of every job on
 * the channel `WRITE_BATCH_PER_SEND × maxInFlight` at a time (or once the oldest has waited
 * `OUTCOME_DELAY_MS`); and one for the outcomes of tasks nothing was sent for, written at once.
 */
export class OutcomeWriters {
  private readonly bySender = new WeakMap<GatedSender, OutcomeWriter>();
  private readonly unsent: OutcomeWriter;

  constructor(private readonly write: (outcomes: TaskOutcome[]) => Promise<void>) {
    this.unsent = new OutcomeWriter(write, DELIVERY_BATCH, 0);
  }

  of(sender: GatedSender | undefined): OutcomeWriter {
    if (!sender) return this.unsent;
    let writer = this.bySender.get(sender);
    if (!writer) {
      writer = new OutcomeWriter(this.write, WRITE_BATCH_PER_SEND * sender.maxInFlight, OUTCOME_DELAY_MS);
      this.bySender.set(sender, writer);
    }
    return writer;
  }
}
