/** One request as request inspection shows it: never headers (so never credentials), never a response body. */
export interface InspectedRequest {
  /** Increases by one per recorded request since the server started. */
  seq: number;
  /** When the response was sent (ISO). */
  time: string;
  method: string;
  /** Path and query string as received. */
  path: string;
  status: number;
  durationMs: number;
  /** Who called: a principal's link (`/org/o/serviceaccount/ci`), `anonymous`, or absent when authentication failed. */
  principal?: string;
  /**
   * For a successful PATCH of one object: the object before and after, as the API returns it (records hold no
   * secrets: service accounts list key names only). Lets the console show each PATCH as a diff.
   */
  change?: { before: unknown; after: unknown };
  /** The parsed JSON body; absent when there was none; a note instead when it was larger than `MAX_BODY_BYTES`. */
  body?: unknown;
}

/** Bodies larger than this are not kept (a note with their size is). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Requests kept by default: enough for a test's traffic, bounded in memory (≤ 500 × 64 KiB). */
export const DEFAULT_INSPECTED_REQUESTS = 500;

/** The last `capacity` requests, oldest first. */
export class RequestRing {
  private readonly entries: InspectedRequest[] = [];
  private seq = 0;

  constructor(readonly capacity: number = DEFAULT_INSPECTED_REQUESTS) {}

  push(entry: Omit<InspectedRequest, "seq" | "body">, body: unknown, bodyBytes: number): void {
    const recorded: InspectedRequest = { seq: ++this.seq, ...entry };
    if (entry.change && bodyBytes > MAX_BODY_BYTES) delete recorded.change;
    if (body !== undefined) {
      recorded.body = bodyBytes > MAX_BODY_BYTES ? `[body of ${bodyBytes} bytes not kept]` : body;
    }
    this.entries.push(recorded);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** The last `limit` requests (all kept when undefined), oldest first. */
  list(limit?: number): InspectedRequest[] {
    return limit === undefined ? [...this.entries] : this.entries.slice(Math.max(0, this.entries.length - limit));
  }

  clear(): void {
    this.entries.length = 0;
  }
}

const WRITES = new Set(["POST", "PUT", "PATCH"]);
const MAX_LOGGED_BODY = 2000;

/** One readable log line: `PATCH /org/demo/policy/p1 200 3.1ms {"description":"x"}` (the body of writes only). */
export function logLine(method: string, path: string, status: number, durationMs: number, body: unknown): string {
  let line = `${method} ${path} ${status} ${durationMs.toFixed(1)}ms`;
  if (WRITES.has(method) && body !== undefined) {
    const text = JSON.stringify(body);
    line += ` ${text.length > MAX_LOGGED_BODY ? `${text.slice(0, MAX_LOGGED_BODY)}… (${text.length} chars)` : text}`;
  }
  return line;
}
