/**
 * Where a call of the client goes and what parses its answer: a kind's collection path, a link made full with the
 * call's org, and the record schema of the kind a link names (the kind's declaration, `api/kinds/<kind>.ts`).
 */
import { z } from "zod";
import { isKind, kinds, type Kind } from "../../api/kinds/index.js";
import { collectionPath, parseLink } from "../../api/links.js";
import type { ApiRecord } from "./types.js";

/**
 * The collection path of a kind (`/org/o/org` for the org's own catalog, as the service routes it); `org` is asked
 * for only once the kind is known, so an unknown kind is the error reported first.
 */
export function kindPath(method: string, kind: Kind, org: () => string, gvc: string | undefined): string {
  if (!isKind(kind)) throw new Error(`CplnClient.${method}: unknown kind "${String(kind)}"`);
  const orgName = org();
  if (kind === "org") return `/org/${encodeURIComponent(orgName)}/org`;
  if (kinds[kind].scope === "gvc" && (gvc === undefined || gvc === "")) {
    throw new Error(`CplnClient.${method}: ${kind} objects live in a gvc: pass { gvc }`);
  }
  return collectionPath(orgName, kind, gvc);
}

/** A relative link (`//policy/p`) made full with the call's org; full links are used as they are. */
export function fullLink(link: string, org: () => string): string {
  if (link.startsWith("//")) return `/org/${encodeURIComponent(org())}/${link.slice(2)}`;
  if (!link.startsWith("/org/")) throw new Error(`CplnClient: "${link}" is not a link (/org/<org>/<kind>/<name>)`);
  return link;
}

/** The record schema of a kind, typed as the fields every record has. */
export function recordSchema(kind: Kind): z.ZodType<ApiRecord> {
  return kinds[kind].schemas.record() as z.ZodType<ApiRecord>;
}

/** The record schema for a self link's kind; links of unknown shape are read as generic records. */
export function recordSchemaOf(path: string): z.ZodType<ApiRecord> {
  const parsed = parseLink(path);
  if (parsed === undefined || parsed.name === undefined) {
    return z.looseObject({ kind: z.string(), id: z.string(), name: z.string() }) as unknown as z.ZodType<ApiRecord>;
  }
  return recordSchema(parsed.kind);
}

/** The kind of a collection link (`/org/o/policy`, `/org/o/gvc/g/volumeset`), or undefined when it is not one. */
export function collectionKind(path: string): Kind | undefined {
  const parsed = parseLink(path);
  return parsed === undefined || parsed.name !== undefined || parsed.kind === "org" ? undefined : parsed.kind;
}
