import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";

export interface OfficeConverterOptions {
  /** The Python that has LibreOffice's UNO bindings (Debian: /usr/bin/python3 with python3-uno). */
  python: string;
  soffice: string;
  /** LibreOffice's profile for this converter: private, so it never meets a desktop user's. */
  profileDir: string;
  /** Longest a conversion may take before LibreOffice is taken for stuck and restarted. */
  timeoutMs: number;
  log: Logger;
}

interface Conversion {
  input: string;
  output: string;
  filter: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface RunningOffice {
  process: ChildProcess;
  ready: Promise<void>;
  answer?: (reply: { ok?: true; error?: string }) => void;
}

const BRIDGE = fileURLToPath(new URL("./office_bridge.py", import.meta.url));

/**
 * LibreOffice kept running for conversions: started once (its cold start is the slow part), fed
 * one document at a time over UNO by a small Python bridge, and started again if it dies or a
 * conversion outlasts the timeout. Conversions wait their turn in order.
 */
export class OfficeConverter {
  private office: RunningOffice | undefined;
  private readonly queue: Conversion[] = [];
  private busy = false;
  private closed = false;

  constructor(private readonly options: OfficeConverterOptions) {}

  /** The running bridge's process (its group holds soffice), if LibreOffice runs. */
  get pid(): number | undefined {
    return this.office?.process.pid;
  }

  /** Starts LibreOffice now rather than at the first conversion. */
  async warmUp(): Promise<void> {
    const office = this.running();
    holdOpen(office.process, true);
    try {
      await office.ready;
    } finally {
      holdOpen(office.process, false);
    }
  }

  convert(input: string, output: string, filter = "writer_pdf_Export"): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the office converter is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ input, output, filter, resolve, reject });
      void this.next();
    });
  }

  private async next(): Promise<void> {
    if (this.busy) return;
    const conversion = this.queue.shift();
    if (!conversion) return;
    this.busy = true;
    try {
      await this.run(conversion);
      conversion.resolve();
    } catch (error) {
      conversion.reject(error as Error);
    } finally {
      this.busy = false;
      void this.next();
    }
  }

  private async run(conversion: Conversion): Promise<void> {
    const office = this.running();
    holdOpen(office.process, true);
    try {
      await this.send(office, conversion);
    } finally {
      holdOpen(office.process, false);
    }
  }

  private async send(office: RunningOffice, conversion: Conversion): Promise<void> {
    await office.ready;
    const reply = await new Promise<{ ok?: true; error?: string }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.options.log.warn(
          { timeoutMs: this.options.timeoutMs },
          "LibreOffice conversion timed out; restarting it",
        );
        this.stop(office);
        reject(new PlatformError(ErrorCode.Unprocessable, "the document conversion timed out"));
      }, this.options.timeoutMs);
      office.answer = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      office.process.stdin!.write(
        `${JSON.stringify({ input: conversion.input, output: conversion.output, filter: conversion.filter })}\n`,
      );
    });
    if (reply.error !== undefined) {
      throw new PlatformError(
        ErrorCode.Unprocessable,
        `LibreOffice could not convert the document: ${reply.error}`,
      );
    }
  }

  private running(): RunningOffice {
    if (this.office && this.office.process.exitCode === null && !this.office.process.killed)
      return this.office;
    const pipeName = `open-platform-${process.pid}-${randomUUID()}`;
    const child = spawn(
      this.options.python,
      [BRIDGE, this.options.soffice, this.options.profileDir, pipeName],
      {
        stdio: ["pipe", "pipe", "pipe"],
        // Its own process group, so stopping it stops soffice too.
        detached: true,
      },
    );
    const office: RunningOffice = { process: child, ready: Promise.resolve() };
    let wasReady = false;
    let stderr = "";
    // A bridge that died while a conversion was being written closes its stdin: the exit handler
    // answers that conversion, so the write's EPIPE has nothing left to say.
    child.stdin!.on("error", () => {});
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const lines = createInterface({ input: child.stdout! });
    office.ready = new Promise<void>((resolve, reject) => {
      const started = performance.now();
      lines.on("line", (line) => {
        const message = JSON.parse(line) as { ready?: true; pid?: number; ok?: true; error?: string };
        if (message.ready) {
          this.options.log.info(
            { officePid: message.pid, ms: Math.round(performance.now() - started) },
            "LibreOffice started",
          );
          wasReady = true;
          resolve();
          return;
        }
        const answer = office.answer;
        office.answer = undefined;
        answer?.(message);
      });
      child.on("error", (error) =>
        reject(
          new PlatformError(ErrorCode.Unavailable, `LibreOffice could not be started: ${error.message}`),
        ),
      );
      child.on("exit", (code, signal) => {
        const reason = stderr.trim().split("\n").at(-1) || `exit ${code ?? signal}`;
        reject(new PlatformError(ErrorCode.Unavailable, `LibreOffice is not running: ${reason}`));
        office.answer?.({ error: `LibreOffice stopped: ${reason}` });
        office.answer = undefined;
        if (this.office === office) this.office = undefined;
        if (this.closed) return;
        this.options.log.warn({ code, signal, reason }, "LibreOffice exited");
        // One that had been working is started again at once, so the next document finds it warm.
        if (wasReady && !this.office) this.running();
      });
    });
    office.ready.catch(() => {});
    holdOpen(child, false);
    this.office = office;
    return office;
  }

  private stop(office: RunningOffice): void {
    if (this.office === office) this.office = undefined;
    // A bridge that could not be started (no Python there) has no process to stop.
    if (office.process.pid === undefined) return;
    try {
      process.kill(-office.process.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) waiting.reject(new Error("the office converter is closed"));
    const office = this.office;
    if (!office) return;
    this.office = undefined;
    if (office.process.pid === undefined || office.process.exitCode !== null) return;
    const exited = new Promise((resolve) => office.process.once("exit", resolve));
    office.process.stdin!.end();
    const timer = setTimeout(() => this.stop(office), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** An idle LibreOffice does not keep the process alive; one at work does. */
function holdOpen(child: ChildProcess, hold: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as {
    ref?: () => void;
    unref?: () => void;
  }[]) {
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
}
