import { z } from "zod";
import { MAX_DEAD_LETTERS_HELD } from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { outboxLag } from "../../workflow/outbox/outbox-lag.ts";
import type { GatewayUses } from "../gateway-env.ts";
import { queueOverview } from "../queue-overview.ts";
import {
  type ConsoleApp,
  type ConsoleContext,
  checked,
  consolePage,
  pageSession,
  redirectWith,
  render,
} from "./console-page.ts";
import { deadLettersView, type QueueView, queuesView } from "./queues-views.tsx";

const queueSchema = z.string().regex(/^[a-z][a-z0-9_.-]{0,127}$/, "a queue's name");
const messageIdSchema = z.string().min(1).max(200).optional();
/** Dead letters a queue's page shows, oldest first. */
const LETTERS_SHOWN = 100;

/** The work queues: depth and consumers, and their dead letters read, replayed and purged with the admin API's broker calls. */
export function queuePages(app: ConsoleApp, deps: GatewayUses<"broker" | "db" | "log">) {
  const { broker } = deps;

  const queues = (): Promise<QueueView[]> => queueOverview(broker);
  async function queueOf(c: ConsoleContext): Promise<QueueView> {
    const name = checked(queueSchema, c.req.param("queue"), "queue");
    const queue = (await queues()).find((candidate) => candidate.queue === name);
    if (!queue) throw new PlatformError(ErrorCode.NotFound, `No queue ${name}.`);
    return queue;
  }
  const pageOf = (queue: QueueView) => `/console/queues/${encodeURIComponent(queue.queue)}`;

  consolePage(app, "/queues", {
    get: async (c) => {
      const [list, outbox] = await Promise.all([queues(), outboxLag(deps.db.sql)]);
      return render(c, queuesView({ session: pageSession(c), queues: list, outbox }));
    },
  });

  consolePage(app, "/queues/:queue", {
    get: async (c) => {
      const queue = await queueOf(c);
      const letters = await broker.peekDeadLetters(queue.queue, LETTERS_SHOWN);
      return render(c, deadLettersView({ session: pageSession(c), queue, letters, limit: LETTERS_SHOWN }));
    },
  });

  consolePage(app, "/queues/:queue/replay", {
    post: async (c) => {
      const queue = await queueOf(c);
      if (!queue.replayable)
        throw new PlatformError(
          ErrorCode.Conflict,
          `Jobs of ${queue.queue} answer a caller who no longer waits; purge them instead.`,
        );
      const messageId = checked(messageIdSchema, c.get("form").get("messageId") || undefined, "messageId");
      const replayed = await broker.replayDeadLetters(queue.queue, {
        ...(messageId === undefined ? {} : { messageId }),
        limit: messageId === undefined ? MAX_DEAD_LETTERS_HELD : 1,
      });
      if (messageId !== undefined && replayed === 0)
        throw new PlatformError(ErrorCode.NotFound, `No dead letter ${messageId} in ${queue.queue}.`);
      deps.log.info({ queue: queue.queue, replayed, messageId }, "dead letters replayed in the console");
      const text = `${replayed} dead letter${replayed === 1 ? "" : "s"} of ${queue.queue} went back on the queue.`;
      return redirectWith(c, pageOf(queue), { kind: "done", text });
    },
  });

  consolePage(app, "/queues/:queue/purge", {
    post: async (c) => {
      const queue = await queueOf(c);
      const purged = await broker.purgeDeadLetters(queue.queue);
      deps.log.info({ queue: queue.queue, purged }, "dead letters purged in the console");
      const text = `${purged} dead letter${purged === 1 ? "" : "s"} of ${queue.queue} purged.`;
      return redirectWith(c, pageOf(queue), { kind: "done", text });
    },
  });
}
