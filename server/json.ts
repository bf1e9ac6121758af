/**
 * JSON text of stored documents, remembered so that lists are answered without serializing every item again. The
 * store registers the exact text it read a frozen document from (the row *is* `JSON.stringify(doc)`); the reply
 * serializer splices those texts into list and query answers. Entries live as long as their document (WeakMap).
 */
const texts = new WeakMap<object, string>();
/** Replies sent again unchanged (`reusedReply`). */
const reused = new WeakSet<object>();
/** Their JSON as UTF-8 bytes, encoded the first time one is sent (`replyPayload`). */
const encoded = new WeakMap<object, Buffer>();
/** Documents `freezeWithJson` found plain JSON: their text parses back to an equal document. */
const plain = new WeakSet<object>();

/** The remembered JSON text of a stored document, or its JSON serialization. */
export function jsonOf(value: unknown): string {
  const text = typeof value === "object" && value !== null ? texts.get(value) : undefined;
  return text ?? JSON.stringify(value);
}

/** Registers `text` as the JSON of `doc`, which must be frozen (so the two can never disagree). */
export function rememberJson(doc: object, text: string): void {
  if (Object.isFrozen(doc)) texts.set(doc, text);
}

/**
 * Whether `value` holds only what JSON keeps as it is (plain objects and arrays, strings, finite numbers, booleans,
 * null): then it equals `JSON.parse(JSON.stringify(value))`. With `freeze`, the same walk freezes every object and
 * array it has checked (frozen parts are checked too, not taken on trust).
 */
function plainWalk(value: unknown, freeze: boolean, depth: number, shared?: object): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth > 200) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainWalk(value[i], freeze, depth + 1)) return false;
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key in value) {
      if (!Object.hasOwn(value, key) || key === "__proto__") return false;
      const child = (value as Record<string, unknown>)[key];
      if (shared !== undefined && isSharedPart(child, shared, key)) continue;
      if (!plainWalk(child, freeze, depth + 1)) return false;
    }
  }
  // Frozen after its parts, so a frozen object is frozen all the way down even when the walk stops early.
  if (freeze && !Object.isFrozen(value)) Object.freeze(value);
  return true;
}

/** Whether `value` is plain JSON: it equals `JSON.parse(JSON.stringify(value))` (see `plainWalk`). */
export function isPlainJson(value: unknown): boolean {
  return plainWalk(value, false, 0);
}

/**
 * Whether `child`, the field `key` of a document, is the very object or array that field holds in `shared`, a
 * document `freezeWithJson` found plain: then it is frozen plain JSON all the way down already (a patched record
 * shares the fields the patch leaves alone) and needs no second walk.
 */
function isSharedPart(child: unknown, shared: object, key: string): boolean {
  return (
    typeof child === "object" && child !== null && Object.hasOwn(shared, key) && child === shared[key as keyof object]
  );
}

/**
 * Freezes `doc` (all the way down) and registers `text`, its `JSON.stringify`, as its JSON. When the document is plain
 * JSON (see `plainWalk`), the text also parses back to an equal document: the store then writes the text and keeps
 * the document itself, with no second walk or parse (`plainJsonOf`). `base`, a document this found plain (the
 * stored record a patch started from), lends its verdict to the top-level fields `doc` shares with it.
 */
export function freezeWithJson(doc: object, text: string, base?: object): void {
  freezePlain(doc, base);
  texts.set(doc, text);
}

/**
 * Freezes `doc` (all the way down) and says whether it is plain JSON, without serializing it; `base` as for
 * `freezeWithJson`. For a document whose text is only needed later (see `SqliteStore`'s `touch`).
 */
export function freezePlain(doc: object, base?: object): boolean {
  const isPlain = plainWalk(doc, true, 0, base !== undefined && plain.has(base) ? base : undefined);
  if (isPlain) plain.add(doc);
  else deepFreeze(doc);
  return isPlain;
}

/** The registered text of a document `freezeWithJson` found plain JSON (it parses back to an equal one), else undefined. */
export function plainJsonOf(doc: object): string | undefined {
  return plain.has(doc) ? texts.get(doc) : undefined;
}

/** Freezes a document and everything in it (a frozen part is taken as frozen all the way down). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Exact equality of two JSON values: the same keys with equal values, arrays equal item by item in order (`null`
 * and an absent key differ). What lets a check skip a value that equals one it already accepted.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
      return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The reply serializer: `JSON.stringify`, except that a stored record is answered with its remembered text, and an
 * answer with an `items` array reuses the remembered text of each item. The result is the same JSON value (`items` moves to the end of the envelope, which JSON does not order).
 */
export function serializeReply(payload: unknown): string {
  if (!isPlainObject(payload)) return JSON.stringify(payload);
  // One stored record (GET, and the answer of a create or PATCH): its remembered text is its JSON.
  const own = texts.get(payload);
  if (own !== undefined) return own;
  if (!Array.isArray(payload["items"])) return JSON.stringify(payload);
  const { items, ...envelope } = payload as { items: unknown[] } & Record<string, unknown>;
  let known = 0;
  const parts = items.map((item) => {
    const text = typeof item === "object" && item !== null ? texts.get(item) : undefined;
    if (text !== undefined) known++;
    return text ?? JSON.stringify(item) ?? "null";
  });
  if (known === 0) return JSON.stringify(payload);
  const head = JSON.stringify(envelope);
  return `${head.slice(0, -1)}${head === "{}" ? "" : ","}"items":[${parts.join(",")}]}`;
}

/**
 * What the server sends for a handler's answer: `serializeReply`'s text, or for a reused reply its UTF-8 bytes,
 * encoded once, so that sending it again neither serializes nor encodes (fastify sends a Buffer as it is).
 */
export function replyPayload(payload: unknown): string | Buffer {
  if (typeof payload !== "object" || payload === null || !reused.has(payload)) return serializeReply(payload);
  let bytes = encoded.get(payload);
  if (bytes === undefined) {
    bytes = Buffer.from(serializeReply(payload), "utf8");
    encoded.set(payload, bytes);
  }
  return bytes;
}

/**
 * Marks `reply` (a list page) as one that will be sent again unchanged: frozen all the way down, so its bytes, encoded
 * the first time it is sent, can never disagree with it.
 */
export function reusedReply<T extends object>(reply: T): T {
  deepFreeze(reply);
  reused.add(reply);
  return reply;
}

/**
 * How deeply request bodies may nest objects and arrays (the top-level value is level 1). Well above any real
 * configuration (Kubernetes add-on values, cloud account data, query context run 5–20 levels; serde_json's default
 * recursion limit is 128) and far below where the server's own operations break on Node 20 with its default stack:
 * `JSON.stringify` (every write and reply) throws from ≈4,100 levels (4,184 measured from a shallow stack) and the
 * patch engine's copy (`copyJson`, every PATCH and PUT) from ≈5,400 (5,368). A stored record is at most a few levels
 * deeper than the body that wrote it, so records stay about 60× below the first break.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text `text` nests objects and arrays deeper than `limit`: one pass over the characters, skipping
 * string contents, with a counter (no recursion, so no text can overflow the stack here). Meant to run before
 * `JSON.parse`; on malformed text it may answer either way, and the parse then reports the syntax error.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i += 1;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * `reservedKeyPath` of `parsed`, the `JSON.parse` of `text`, walked only when the text could hold such a key: only a
 * text holding "proto" (as __proto__ and prototype do) or a \u escape (which could spell it) has one.
 */
export function reservedKeyPathInText(text: string, parsed: unknown): string | undefined {
  return text.includes("proto") || text.includes("\\u") ? reservedKeyPath(parsed) : undefined;
}

/**
 * The dotted path of the first key that could poison prototypes if the value were ever merged into an object:
 * `__proto__` anywhere, or `prototype` inside a `constructor` object. Undefined when there is none. Iterative.
 */
export function reservedKeyPath(value: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    const isArray = Array.isArray(next.value);
    for (const [key, child] of Object.entries(next.value)) {
      const path = next.path === "" ? key : `${next.path}.${key}`;
      if (!isArray && key === "__proto__") return path;
      if (!isArray && key === "constructor" && isPlainObject(child) && Object.hasOwn(child, "prototype")) {
        return `${path}.prototype`;
      }
      pending.push({ value: child, path });
    }
  }
  return undefined;
}
