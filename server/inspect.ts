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
  /** Who called: a principal's link (`/org/o/serviceaccount/ci`), or `anonymous`. */
  principal?: string;
  /**
   * `console`: sent by the console (it says so in the `x-cpln-local-client` header), so its view of the log can leave
   * its own requests out. A label, not a credential: any client may send it.
   */
  client?: "console";
  /**
   * For a successful PATCH of one object: the object before and after, as the API returns it (records hold no
   * secrets: service accounts list key names only). Lets the console show each PATCH as a diff. Not kept when the
   * pair is larger than `MAX_BODY_BYTES`.
   */
  change?: { before: unknown; after: unknown };
  /** The parsed JSON body; absent when there was none; a note instead when it was not kept (size, 401). */
  body?: unknown;
}

/** Bodies larger than this (bytes actually received, chunked or not) are not kept (a note with their size is). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Requests kept by default. */
export const DEFAULT_INSPECTED_REQUESTS = 500;
/**
 * Bytes the whole ring may account for (kept body texts and paths at 2 bytes a character, plus a fixed overhead per
 * entry): the oldest entries
 * are dropped first when a new one would go over. 8 MiB keeps at least the last 64 maximal bodies.
 */
export const DEFAULT_INSPECTED_BYTES = 8 * 1024 * 1024;
/** Bytes accounted per entry besides its path and body (the object, its time and method strings). */
export const ENTRY_OVERHEAD_BYTES = 256;
/** The header by which the console marks its own requests, and the value it sends. */
export const CLIENT_HEADER = "x-cpln-local-client";
export const CONSOLE_CLIENT = "console";
/**
 * The console's own requests are kept apart, in a ring of their own (this many, this many bytes): browsing the console
 * (a query per kind per page) never pushes out the requests of the program being inspected.
 */
export const DEFAULT_CONSOLE_REQUESTS = 200;
export const DEFAULT_CONSOLE_BYTES = 1024 * 1024;

/** What `push` is given of a request: its time is taken when it is pushed. */
export type PushedRequest = Omit<InspectedRequest, "seq" | "time" | "body"> & {
  /** A PATCH's before/after pair already serialized (the JSON of `{before, after}`), instead of `change`. */
  changeText?: string;
};

interface Entry {
  /** The request as listed, but its time: milliseconds since the epoch, formatted only when listed. */
  request: Omit<InspectedRequest, "body" | "change" | "time">;
  at: number;
  /** A PATCH's before/after pair as JSON text (parsed again when listed). */
  change?: string;
  /** The body's JSON text as received (parsed again when listed), or a note saying why it was not kept. */
  body?: { text: string } | { note: string };
  bytes: number;
}

/** What the ring holds a body of a request as: the text, a note, or nothing. */
export interface ReceivedBody {
  /** The JSON text as parsed (byte-order mark removed); undefined when the request had no body. */
  text: string | undefined;
  /** Bytes actually received on the wire (not the Content-Length header, which chunked bodies do not have). */
  bytes: number;
}

/**
 * The last requests, oldest first, bounded twice: at most `capacity` entries and at most `budget` accounted bytes.
 * Bodies are kept as the text received (never a parsed object, whose size in memory is a multiple of its text), only
 * up to `MAX_BODY_BYTES`, and never for a request answered 401.
 */
export class RequestRing {
  /** Kept entries from `start` on, oldest first; the slots before `start` were dropped (cleared, reused on compaction). */
  private entries: (Entry | undefined)[] = [];
  private start = 0;
  private accounted = 0;

  constructor(
    readonly capacity: number = DEFAULT_INSPECTED_REQUESTS,
    readonly budget: number = DEFAULT_INSPECTED_BYTES,
    /** Where sequence numbers come from: shared by the rings of one `RequestLog`, so their entries interleave. */
    private readonly counter: { seq: number } = { seq: 0 },
  ) {}

  /** Bytes currently accounted for (always ≤ `budget`). */
  get bytes(): number {
    return this.accounted;
  }

  /**
   * Records one request. A PATCH's before/after pair comes as `change` or, already serialized, as `changeText` (the
   * JSON of `{before, after}`; what the server passes, from texts it already has).
   */
  push(pushed: PushedRequest, body: ReceivedBody): void {
    const { change, changeText: given } = pushed;
    const request: Entry["request"] = {
      seq: ++this.counter.seq,
      method: pushed.method,
      path: pushed.path,
      status: pushed.status,
      durationMs: pushed.durationMs,
    };
    if (pushed.principal !== undefined) request.principal = pushed.principal;
    if (pushed.client !== undefined) request.client = pushed.client;
    const entry: Entry = { request, at: Date.now(), bytes: 0 };
    if (body.text !== undefined) {
      if (request.status === 401) entry.body = { note: "[body of an unauthenticated request not kept]" };
      else if (body.bytes > MAX_BODY_BYTES) entry.body = { note: `[body of ${body.bytes} bytes not kept]` };
      else entry.body = { text: body.text };
    }
    // Strings are accounted at two bytes per character (the most V8 spends on one), whatever their encoding on the wire.
    const kept = entry.body === undefined ? "" : "text" in entry.body ? entry.body.text : entry.body.note;
    const changeText = given ?? (change === undefined ? undefined : JSON.stringify(change));
    if (changeText !== undefined && changeText.length <= MAX_BODY_BYTES) entry.change = changeText;
    entry.bytes = ENTRY_OVERHEAD_BYTES + 2 * (request.path.length + kept.length + (entry.change?.length ?? 0));
    if (entry.bytes > this.budget) return; // cannot happen with the defaults (paths are bounded by the header limit)
    this.entries.push(entry);
    this.accounted += entry.bytes;
    // Dropping the oldest moves `start` (no shift of every kept entry per request, as a splice at the front would).
    while (this.entries.length - this.start > this.capacity || this.accounted > this.budget) {
      this.accounted -= (this.entries[this.start] as Entry).bytes;
      this.entries[this.start] = undefined;
      this.start += 1;
    }
    // Once more slots are dropped than kept, the kept ones move to the front: a copy of at most as many entries as
    // were pushed since the last one, so O(1) per push on average.
    if (this.start > this.entries.length - this.start) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
  }

  /** The last `limit` requests (all kept when undefined), oldest first. */
  list(limit?: number): InspectedRequest[] {
    const from = limit === undefined ? this.start : Math.max(this.start, this.entries.length - limit);
    return (this.entries.slice(from) as Entry[]).map(({ request: { seq, ...request }, at, body, change }) => ({
      seq,
      time: new Date(at).toISOString(),
      ...request,
      ...(change === undefined ? {} : { change: JSON.parse(change) as InspectedRequest["change"] }),
      ...(body === undefined ? {} : { body: "text" in body ? (JSON.parse(body.text) as unknown) : body.note }),
    }));
  }

  clear(): void {
    this.entries = [];
    this.start = 0;
    this.accounted = 0;
  }
}

/**
 * Request inspection: the requests of every client in one ring, the console's own in another (see
 * `DEFAULT_CONSOLE_REQUESTS`); listed together, in the order they were answered.
 */
export class RequestLog {
  private readonly counter = { seq: 0 };
  readonly main: RequestRing;
  readonly console: RequestRing;

  constructor(
    capacity: number = DEFAULT_INSPECTED_REQUESTS,
    budget: number = DEFAULT_INSPECTED_BYTES,
    consoleCapacity: number = DEFAULT_CONSOLE_REQUESTS,
    consoleBudget: number = DEFAULT_CONSOLE_BYTES,
  ) {
    this.main = new RequestRing(capacity, budget, this.counter);
    this.console = new RequestRing(consoleCapacity, consoleBudget, this.counter);
  }

  push(pushed: PushedRequest, body: ReceivedBody): void {
    (pushed.client === CONSOLE_CLIENT ? this.console : this.main).push(pushed, body);
  }

  /** The last `limit` requests of both rings (all kept when undefined), oldest first. */
  list(limit?: number): InspectedRequest[] {
    const merged = [...this.main.list(limit), ...this.console.list(limit)].sort((a, b) => a.seq - b.seq);
    return limit === undefined ? merged : merged.slice(-limit);
  }

  clear(): void {
    this.main.clear();
    this.console.clear();
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
