/**
 * What the real-engine tests share about the org behind a run: the requests
 * cpln-local recorded, the admin API, and a snapshot of every record a user can list, to compare an org before a
 * program's first `up` with the org after its `destroy`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { kindNames, kinds } from "../../dist/api/kinds/index.js";
import { parseLink } from "../../dist/api/links.js";
import { quotaDefinitions } from "../../dist/server/domain/quota.js";
import type { RunningServer } from "../../dist/server/index.js";

export interface Recorded {
  method: string;
  path: string;
  body: unknown;
  status: number;
}

/** A request that changes server state. `-query` and `-join` are POSTs that only read. */
export function isMutating(request: Recorded): boolean {
  return (
    ["POST", "PUT", "PATCH", "DELETE"].includes(request.method) && !/\/-(query|join|cloudinit)$/.test(request.path)
  );
}

/** One request to cpln-local as its admin (`adminKey`); the parsed answer, or an error naming the status. */
export async function adminApi(
  server: RunningServer,
  adminKey: string,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${server.url}${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${adminKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${urlPath} → ${response.status}: ${text}`);
  return text === "" ? undefined : (JSON.parse(text) as unknown);
}

/** Kinds whose records a user can list in the org, from the registry (gvc-scoped ones are listed in every gvc). */
const orgKinds = kindNames.filter((kind) => kinds[kind].scope === "org" && kinds[kind].singleton !== true);
const gvcKinds = kindNames.filter((kind) => kinds[kind].scope === "gvc");

/**
 * Every record a user can list in `org`, keyed by self link, without `version` and `lastModified`: adopting a builtin
 * location and restoring it on destroy bumps its version, while every field a user set must come back. For the same
 * reason without the `current` of the quota on stored bytes, which counts them.
 */
export async function orgSnapshot(
  server: RunningServer,
  org: string,
  adminKey: string,
): Promise<Record<string, unknown>> {
  const snapshot: Record<string, unknown> = {};
  const list = async (urlPath: string): Promise<void> => {
    const { items } = (await adminApi(server, adminKey, "GET", urlPath)) as { items: unknown[] };
    for (const item of items as { links: { rel: string; href: string }[]; version?: number; lastModified?: string }[]) {
      const { version: _version, lastModified: _lastModified, ...rest } = item;
      // The quota on the org's stored bytes counts those two fields too (a version 9 → 10 is one byte more).
      const measured = rest as { kind?: string; name?: string; current?: number };
      if (
        measured.kind === "quota" &&
        quotaDefinitions.some((d) => d.measuresBytes === true && d.name === measured.name)
      )
        delete measured.current;
      snapshot[item.links.find((link) => link.rel === "self")!.href] = rest;
    }
  };
  for (const kind of orgKinds) await list(`/org/${org}/${kind}`);
  for (const gvc of Object.keys(snapshot).filter((link) => link.startsWith(`/org/${org}/gvc/`))) {
    for (const kind of gvcKinds) await list(`${gvc}/${kind}`);
  }
  return snapshot;
}

/** The links in `after` that were not in `before` and cannot be deleted (audit contexts: destroy forgets them). */
export function undeletableAdded(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(after).filter((link) => {
    const kind = parseLink(link)?.kind;
    return !(link in before) && kind !== undefined && kinds[kind].deletable === false;
  });
}

/**
 * Takes out of `after` the objects that were not in `before` and cannot be deleted, and their share of the org's
 * count quotas: their kind's quota up by exactly their number. Any other difference stays. Returns the links taken out.
 */
export function forgetUndeletable(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const left = undeletableAdded(before, after);
  for (const link of left) delete after[link];
  for (const [link, record] of Object.entries(after)) {
    const quota = record as { kind?: string; name?: string; current?: number };
    const was = (before[link] as { current?: number } | undefined)?.current;
    if (quota.kind !== "quota" || was === undefined || quota.current === undefined) continue;
    const definition = quotaDefinitions.find((d) => d.name === quota.name);
    const grew = quota.current - was;
    const counted = left.filter((l) => parseLink(l)?.kind === definition?.counts).length;
    if (grew !== 0 && grew === counted) quota.current = was;
  }
  return left;
}

/**
 * Every file under `dir` (not following links, not under the directories `skip` names), as text. Files and
 * directories that go while it reads (another stack's run beside this one renames its temporary files) are left out;
 * every file that stays is read.
 */
export function filesUnder(
  dir: string,
  skip: (dir: string) => boolean = () => false,
): { file: string; text: string }[] {
  const gone = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";
  const found: { file: string; text: string }[] = [];
  const walk = (at: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(at, { withFileTypes: true });
    } catch (error) {
      if (gone(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (!skip(file)) walk(file);
      } else if (entry.isFile()) {
        try {
          found.push({ file, text: fs.readFileSync(file, "utf8") });
        } catch (error) {
          if (!gone(error)) throw error;
        }
      }
    }
  };
  walk(dir);
  return found;
}
