/**
 * JSON text of stored documents, remembered so that lists are answered without serializing every item again. The
 * store registers the exact text it read a frozen document from (the row *is* `JSON.stringify(doc)`); the reply
 * serializer splices those texts into list and query answers. Entries live as long as their document (WeakMap).
 */
const texts = new WeakMap<object, string>();

/** Registers `text` as the JSON of `doc`, which must be frozen (so the two can never disagree). */
export function rememberJson(doc: object, text: string): void {
  if (Object.isFrozen(doc)) texts.set(doc, text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The reply serializer: `JSON.stringify`, except that an answer with an `items` array reuses the remembered text of
 * each item. The result is the same JSON value (`items` moves to the end of the envelope, which JSON does not order).
 */
export function serializeReply(payload: unknown): string {
  if (!isPlainObject(payload) || !Array.isArray(payload["items"])) return JSON.stringify(payload);
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
