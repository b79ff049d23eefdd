/**
 * Reader for the enterprise data feed's answer, `{"errno":0,"error":"","entities":[…],"total":n}`,
 * which can run to tens of megabytes. The body is scanned byte by byte with a small state machine
 * (string, escape and nesting state) so that only one entity at a time is decoded and parsed.
 * Everything outside the `entities` array — the skeleton — is kept (bounded) and parsed once at the
 * end with the array left empty, so errno/error/total are read whatever order the keys come in.
 */

export interface FeedEnvelope {
  errno: number | null;
  error: string | null;
  total: number | null;
}

export class FeedFormatError extends Error {
  override name = "FeedFormatError";
}

const DEFAULT_MAX_ENTITY_BYTES = 1024 * 1024;
/** The skeleton holds a few scalars; anything bigger is not the feed this reader is for. */
const MAX_SKELETON_BYTES = 64 * 1024;
/** The longest spelling of `"entities"`: every letter as a `\uXXXX` escape, plus the quotes. */
const MAX_ENTITIES_KEY_BYTES = 8 * 6 + 2;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Where the scanner is in the answer. */
const BEFORE_OBJECT = 0;
/** Inside the top-level object, outside the entities array: the bytes go to the skeleton. */
const SKELETON = 1;
/** Inside the entities array, between elements. */
const BETWEEN_ENTITIES = 2;
/** Inside an object, array or string element. */
const IN_COMPOSITE_ENTITY = 3;
/** Inside a number, `true`, `false` or `null` element, which only the next delimiter ends. */
const IN_SCALAR_ENTITY = 4;
const AFTER_OBJECT = 5;

/** What may come next between entities. */
const FIRST_ENTITY = 0;
const ENTITY_AFTER_COMMA = 1;
const COMMA_OR_END = 2;

const isWhitespace = (c: number) => c === SPACE || c === LF || c === CR || c === TAB;

// Fatal, so that a feed in another encoding (GBK…) fails loudly instead of turning into U+FFFD.
const utf8 = new TextDecoder("utf-8", { fatal: true });

function concat(pieces: Uint8Array[], tail: Uint8Array, length: number): Uint8Array {
  return pieces.length === 0 ? tail : Buffer.concat([...pieces, tail], length);
}

class FeedScanner {
  /** Complete entities found in the current chunk, in order, as undecoded bytes. */
  ready: Uint8Array[] = [];
  private mode = BEFORE_OBJECT;
  /** Bytes at the start of the next chunk that belong to an escape begun in this one. */
  private skip = 0;
  private inString = false;

  /** Nesting depth in the skeleton; the top-level object is depth 1. */
  private depth = 0;
  private expectKey = false;
  private lastKey: string | null = null;
  private awaitingEntities = false;
  private entitiesSeen = false;
  /** Start of the depth-1 key being read in the current chunk, or -1. */
  private keyStart = -1;
  private keyPieces: Uint8Array[] = [];
  private keyBytes = 0;
  /** Start of the skeleton part of the current chunk, or -1 while outside the skeleton. */
  private skeletonStart = -1;
  private skeletonPieces: Uint8Array[] = [];
  private skeletonBytes = 0;

  private between = FIRST_ENTITY;
  private entityDepth = 0;
  private entityStart = 0;
  private entityPieces: Uint8Array[] = [];
  private entityBytes = 0;

  constructor(private readonly maxEntityBytes: number) {}

  scan(chunk: Uint8Array): void {
    const n = chunk.length;
    let i = this.skip;
    while (i < n) {
      switch (this.mode) {
        case IN_COMPOSITE_ENTITY:
          i = this.scanCompositeEntity(chunk, i);
          break;
        case IN_SCALAR_ENTITY:
          i = this.scanScalarEntity(chunk, i);
          break;
        case BETWEEN_ENTITIES:
          i = this.scanBetweenEntities(chunk, i);
          break;
        case SKELETON:
          i = this.scanSkeleton(chunk, i);
          break;
        case BEFORE_OBJECT:
          i = this.scanBeforeObject(chunk, i);
          break;
        default:
          for (; i < n; i++) {
            if (!isWhitespace(chunk[i]!)) throw new FeedFormatError("the feed answer goes on after its end");
          }
      }
    }
    // An escape's backslash as the chunk's last byte moves i one past the end.
    this.skip = i - n;

    if (this.mode === IN_COMPOSITE_ENTITY || this.mode === IN_SCALAR_ENTITY) {
      this.entityBytes += n - this.entityStart;
      if (this.entityBytes > this.maxEntityBytes) throw this.entityTooLarge();
      this.entityPieces.push(chunk.subarray(this.entityStart));
      this.entityStart = 0;
    }
    if (this.skeletonStart >= 0) {
      this.addSkeleton(chunk, this.skeletonStart, n);
      this.skeletonStart = 0;
    }
    if (this.keyStart >= 0) {
      this.keyBytes += n - this.keyStart;
      if (this.keyBytes <= MAX_ENTITIES_KEY_BYTES) this.keyPieces.push(chunk.slice(this.keyStart));
      this.keyStart = 0;
    }
  }

  finish(): FeedEnvelope {
    if (this.mode === BEFORE_OBJECT) throw new FeedFormatError("the feed answer is empty");
    if (this.mode !== AFTER_OBJECT) throw new FeedFormatError("the feed answer ends before its end");
    let skeleton: unknown;
    try {
      skeleton = JSON.parse(utf8.decode(Buffer.concat(this.skeletonPieces, this.skeletonBytes)));
    } catch (error) {
      throw new FeedFormatError(`invalid JSON in the feed answer outside entities: ${messageOf(error)}`, {
        cause: error,
      });
    }
    const { errno, error, total } = skeleton as Record<string, unknown>;
    return {
      errno: typeof errno === "number" ? errno : null,
      error: typeof error === "string" ? error : null,
      total: typeof total === "number" ? total : null,
    };
  }

  private scanBeforeObject(chunk: Uint8Array, i: number): number {
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (isWhitespace(c)) continue;
      if (c !== LBRACE) throw new FeedFormatError("the feed answer is not a JSON object");
      this.mode = SKELETON;
      this.depth = 1;
      this.expectKey = true;
      this.skeletonStart = i;
      return i + 1;
    }
    return i;
  }

  /**
   * Only depth 1 matters here: it is where keys are read and where `entities` opens. The rest is
   * kept for the final parse, which is also what rejects a malformed skeleton.
   */
  private scanSkeleton(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    for (; i < n; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.keyStart >= 0) this.readKey(chunk, i + 1);
        }
        continue;
      }
      if (this.awaitingEntities && !isWhitespace(c)) {
        if (c !== LBRACKET) throw new FeedFormatError("entities is not an array");
        this.awaitingEntities = false;
        this.entitiesSeen = true;
        // The skeleton keeps the `[` and, later, the `]`: it reads `"entities":[]`.
        this.addSkeleton(chunk, this.skeletonStart, i + 1);
        this.skeletonStart = -1;
        this.depth = 2;
        this.mode = BETWEEN_ENTITIES;
        this.between = FIRST_ENTITY;
        return i + 1;
      }
      switch (c) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) {
            this.keyStart = i;
            this.keyBytes = 0;
            this.keyPieces.length = 0;
          }
          break;
        case LBRACE:
        case LBRACKET:
          this.depth++;
          break;
        case RBRACE:
        case RBRACKET:
          if (--this.depth === 0) {
            this.addSkeleton(chunk, this.skeletonStart, i + 1);
            this.skeletonStart = -1;
            this.mode = AFTER_OBJECT;
            return i + 1;
          }
          break;
        case COMMA:
          if (this.depth === 1) this.expectKey = true;
          break;
        case COLON:
          if (this.depth === 1) {
            this.expectKey = false;
            if (this.lastKey === "entities") {
              if (this.entitiesSeen) throw new FeedFormatError("the feed answer has entities twice");
              this.awaitingEntities = true;
            }
            this.lastKey = null;
          }
          break;
      }
    }
    return i;
  }

  private readKey(chunk: Uint8Array, end: number): void {
    const length = this.keyBytes + end - this.keyStart;
    this.lastKey = null;
    if (length <= MAX_ENTITIES_KEY_BYTES) {
      const bytes = concat(this.keyPieces, chunk.subarray(this.keyStart, end), length);
      try {
        this.lastKey = JSON.parse(utf8.decode(bytes)) as string;
      } catch (error) {
        throw new FeedFormatError(`invalid JSON in a key of the feed answer: ${messageOf(error)}`, {
          cause: error,
        });
      }
    }
    this.keyStart = -1;
    this.keyPieces.length = 0;
  }

  private addSkeleton(chunk: Uint8Array, start: number, end: number): void {
    if (end === start) return;
    this.skeletonBytes += end - start;
    if (this.skeletonBytes > MAX_SKELETON_BYTES) {
      throw new FeedFormatError(`the feed answer passes ${MAX_SKELETON_BYTES} bytes outside entities`);
    }
    // A copy, so the skeleton does not hold on to whole chunks.
    this.skeletonPieces.push(chunk.slice(start, end));
  }

  private scanBetweenEntities(chunk: Uint8Array, i: number): number {
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (isWhitespace(c)) continue;
      if (c === COMMA) {
        if (this.between !== COMMA_OR_END)
          throw new FeedFormatError("invalid JSON in entities: a stray comma");
        this.between = ENTITY_AFTER_COMMA;
        continue;
      }
      if (c === RBRACKET) {
        if (this.between === ENTITY_AFTER_COMMA) {
          throw new FeedFormatError("invalid JSON in entities: a comma before the end");
        }
        // The skeleton scan takes the `]` back to depth 1.
        this.mode = SKELETON;
        this.skeletonStart = i;
        return i;
      }
      if (this.between === COMMA_OR_END) {
        throw new FeedFormatError("invalid JSON in entities: a comma is missing between entities");
      }
      this.entityStart = i;
      if (c === LBRACE || c === LBRACKET) {
        this.mode = IN_COMPOSITE_ENTITY;
        this.entityDepth = 1;
      } else if (c === QUOTE) {
        this.mode = IN_COMPOSITE_ENTITY;
        this.entityDepth = 0;
        this.inString = true;
      } else {
        this.mode = IN_SCALAR_ENTITY;
      }
      return i + 1;
    }
    return i;
  }

  /** The hot loop: nearly every byte of the answer passes here, most of them inside strings. */
  private scanCompositeEntity(chunk: Uint8Array, i: number): number {
    const n = chunk.length;
    let depth = this.entityDepth;
    if (this.inString) {
      i = skipString(chunk, i);
      if (i >= n) return i;
      this.inString = false;
      if (depth === 0) return this.endEntity(chunk, i + 1);
      i++;
    }
    while (i < n) {
      const c = chunk[i]!;
      if (c === QUOTE) {
        i = skipString(chunk, i + 1);
        if (i >= n) {
          this.inString = true;
          break;
        }
        if (depth === 0) return this.endEntity(chunk, i + 1);
      } else if (c === LBRACE || c === LBRACKET) {
        depth++;
      } else if (c === RBRACE || c === RBRACKET) {
        // A mismatched bracket still balances the count; JSON.parse then rejects the entity.
        if (--depth === 0) return this.endEntity(chunk, i + 1);
      }
      i++;
    }
    this.entityDepth = depth;
    return i;
  }

  private scanScalarEntity(chunk: Uint8Array, i: number): number {
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === COMMA || c === RBRACKET || isWhitespace(c)) return this.endEntity(chunk, i);
    }
    return i;
  }

  private endEntity(chunk: Uint8Array, end: number): number {
    const length = this.entityBytes + end - this.entityStart;
    if (length > this.maxEntityBytes) throw this.entityTooLarge();
    this.ready.push(concat(this.entityPieces, chunk.subarray(this.entityStart, end), length));
    if (this.entityPieces.length > 0) this.entityPieces = [];
    this.entityBytes = 0;
    this.inString = false;
    this.mode = BETWEEN_ENTITIES;
    this.between = COMMA_OR_END;
    return end;
  }

  private entityTooLarge(): FeedFormatError {
    return new FeedFormatError(`an entity passes ${this.maxEntityBytes} bytes`);
  }
}

/**
 * The index of the string's closing quote, or an index at or past the chunk's end (one past it
 * when the chunk ends on a backslash, so the escaped byte is skipped in the next chunk). A loop of
 * its own, with two comparisons a byte, because most of the answer's bytes are inside strings.
 */
function skipString(chunk: Uint8Array, i: number): number {
  const n = chunk.length;
  while (i < n) {
    const c = chunk[i]!;
    if (c === QUOTE) return i;
    i += c === BACKSLASH ? 2 : 1;
  }
  return i;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reads a feed response body chunk by chunk and yields each element of its top-level `entities`
 * array as parsed JSON (any JSON value: objects normally, but a malformed feed may put a number or
 * null there; it is yielded as is so the caller can reject that row). After the last element, the
 * returned envelope (the generator's return value) holds errno/error/total from the top-level object.
 *
 * Throws FeedFormatError for an answer that is not a JSON object, is cut short, has invalid JSON,
 * has a non-array `entities`, has an entity over `maxEntityBytes` (default 1 MiB) or goes on after
 * the object. Entities before the fault are yielded first, however the body is chunked. A missing
 * `entities` yields nothing; missing errno/error/total are null.
 */
export async function* feedEntities(
  body: AsyncIterable<Uint8Array>,
  options: { maxEntityBytes?: number } = {},
): AsyncGenerator<unknown, FeedEnvelope> {
  const scanner = new FeedScanner(options.maxEntityBytes ?? DEFAULT_MAX_ENTITY_BYTES);
  let count = 0;
  for await (const chunk of body) {
    let fault: FeedFormatError | undefined;
    try {
      scanner.scan(chunk);
    } catch (error) {
      if (!(error instanceof FeedFormatError)) throw error;
      fault = error;
    }
    const ready = scanner.ready;
    scanner.ready = [];
    for (const bytes of ready) {
      count++;
      let entity: unknown;
      try {
        entity = JSON.parse(utf8.decode(bytes));
      } catch (error) {
        throw new FeedFormatError(`invalid JSON in entity ${count}: ${messageOf(error)}`, { cause: error });
      }
      yield entity;
    }
    if (fault) throw fault;
  }
  return scanner.finish();
}
