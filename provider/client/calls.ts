/**
 * The calls every method of `CplnClient` is made of: one request with the client's token, deadline and retries
 * (`request` of `./http.ts`), its answer parsed by a zod schema; a create that reads the record from `Location` when
 * the 201 body is not it; every page of a list or a query. The token is held here, in a private field, and goes
 * nowhere but the `Authorization` header.
 */
import type { z } from "zod";
import { findLink } from "../../api/links.js";
import { listResponse, queryResult } from "../../api/schemas/index.js";
import { invalidResponseError } from "./errors.js";
import { request, type HttpMethod, type HttpResponse, type RetryOptions } from "./http.js";
import type { QueryDocumentBody, QueryResult } from "./types.js";

const maxPages = 1000;

export interface CallSettings {
  endpoint: string;
  token: string | undefined;
  timeoutMs: number;
  retry: Required<RetryOptions>;
}

export class ClientCalls {
  readonly #settings: CallSettings;

  constructor(settings: CallSettings) {
    this.#settings = settings;
  }

  send<T>(options: {
    method: HttpMethod;
    path: string;
    body?: unknown;
    schema?: z.ZodType<T>;
    idempotent?: boolean;
  }): Promise<HttpResponse<T>> {
    const { endpoint, token, timeoutMs, retry } = this.#settings;
    if (token === undefined || token === "") {
      throw new Error(
        "CplnClient: no token: pass { token }, set the stack config cpln:token, or set the environment variable CPLN_TOKEN",
      );
    }
    return request<T>({ endpoint, token }, { ...options, timeoutMs, retry });
  }

  async call<T>(
    method: HttpMethod,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    idempotent?: boolean,
  ): Promise<T> {
    return (await this.send({ method, path, schema, body, idempotent })).body;
  }

  /** POST to a collection: the 201 body when it is the record, else one GET of the `Location` header. */
  async create<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    const response = await this.send<unknown>({ method: "POST", path, body });
    const parsed = schema.safeParse(response.body);
    if (parsed.success) return parsed.data;
    const location = header(response.headers, "location");
    if (location === undefined) {
      throw invalidResponseError("POST", path, response.status, "no record in the body and no Location header");
    }
    const target = location.startsWith("http") ? new URL(location).pathname : location;
    return this.call("GET", target, schema);
  }

  async list<T>(path: string, item: z.ZodType<T>): Promise<T[]> {
    const schema = listResponse(item);
    const items: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next !== undefined && page < maxPages; page++) {
      const body: z.infer<typeof schema> = await this.call("GET", next, schema);
      items.push(...(body.items as T[]));
      next = nextPage(body.links, next);
    }
    return items;
  }

  async runQuery<T>(path: string, doc: QueryDocumentBody, item: z.ZodType<T>): Promise<QueryResult<T>> {
    const schema = queryResult(item);
    const first = await this.call("POST", path, schema, doc, true);
    const items = [...first.items] as (T | string)[];
    let next = nextPage(first.links, path);
    for (let page = 1; next !== undefined && page < maxPages; page++) {
      const body: z.infer<typeof schema> = await this.call("GET", next, schema);
      items.push(...(body.items as (T | string)[]));
      next = nextPage(body.links, next);
    }
    return { ...(first as unknown as QueryResult<T>), items };
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The `next` link of a page, unless it points back at the same page. */
function nextPage(links: readonly { rel: string; href: string }[] | undefined, current: string): string | undefined {
  const href = findLink(links, "next");
  return href === undefined || href === current ? undefined : href;
}
