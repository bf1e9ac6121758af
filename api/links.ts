import { isKind, kinds, type Kind } from "./kinds/index.js";

/** A link as it appears in every record's `links` array; `href` is a path (`/org/acme/policy/p`). */
export interface Link {
  rel: string;
  href: string;
}

export interface ParsedLink {
  org: string;
  kind: Kind;
  /** Absent for a collection link (`/org/acme/policy`). */
  name?: string;
  /** Present for gvc-scoped kinds (`/org/acme/gvc/main/volumeset/data` → `main`). */
  gvc?: string;
}

export function link(rel: string, href: string): Link {
  return { rel, href };
}

function requireGvc(kind: Kind, gvc: string | undefined): string {
  if (gvc === undefined || gvc === "") throw new Error(`A ${kind} lives inside a gvc: the gvc name is required`);
  return gvc;
}

/** Collection path: `/org/o/policy`, `/org/o/gvc/g/volumeset`, `/org/o/gvc`; `/org` for orgs. */
export function collectionPath(org: string, kind: Kind, gvc?: string): string {
  if (kind === "org") return "/org";
  if (kinds[kind].scope === "gvc") return `/org/${org}/gvc/${requireGvc(kind, gvc)}/${kind}`;
  return `/org/${org}/${kind}`;
}

/** Self link: `/org/o/<kind>/<name>`, `/org/o/gvc/g/<kind>/<name>` for gvc-scoped kinds, `/org/o` for the org. */
export function selfLink(org: string, kind: Kind, name: string, gvc?: string): string {
  if (kind === "org") return `/org/${org}`;
  return `${collectionPath(org, kind, gvc)}/${name}`;
}

function decode(segment: string): string {
  // Most segments hold no escape: no call (and no try) for them. Every PATCH parses its own link (request inspection).
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Parses a full link (`/org/o`, `/org/o/gvc/g`, `/org/o/policy/p`, `/org/o/gvc/g/volumeset/v`, or a collection link
 * such as `/org/o/policy`). Returns undefined for anything else (relative links, unknown kinds, extra segments).
 */
export function parseLink(href: string): ParsedLink | undefined {
  const path = href.split(/[?#]/, 1)[0] ?? "";
  const parts = path.split("/").slice(1).map(decode);
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  if (parts[0] !== "org" || parts.length < 2 || parts.some((p) => p === "")) return undefined;
  const org = parts[1] as string;
  if (parts.length === 2) return { org, kind: "org", name: org };
  const kind = parts[2] as string;
  if (!isKind(kind) || kind === "org") return undefined;
  if (kind === "gvc" && parts.length >= 5) {
    // /org/o/gvc/g/<kind>[/<name>]
    const gvc = parts[3] as string;
    const inner = parts[4] as string;
    if (!isKind(inner) || kinds[inner].scope !== "gvc" || parts.length > 6) return undefined;
    return parts.length === 6 ? { org, kind: inner, gvc, name: parts[5] as string } : { org, kind: inner, gvc };
  }
  if (kinds[kind].scope === "gvc" || parts.length > 4) return undefined;
  return parts.length === 4 ? { org, kind, name: parts[3] as string } : { org, kind };
}

/**
 * Turns a relative link (`//group/x`, `//gvc/g/volumeset/v`) into the full form (`/org/o/group/x`). Full links and
 * anything else are returned unchanged.
 */
export function normalizeLink(org: string, href: string): string {
  if (href.startsWith("//")) return `/org/${org}/${href.slice(2)}`;
  return href;
}

/**
 * The short form of a link that users of the Terraform provider and `@pulumiverse/cpln` write: relative to the org
 * without the leading `//` (`group/admins`, `serviceaccount/ci`, `gvc/main/identity/app`), which that provider prefixes
 * with `/org/<org>/` (terraform-provider-cpln internal/provider/resource_policy.go, buildPrincipalLinks). Returns the
 * relative form (`//group/admins`) when the first segment is a kind and a name follows; anything else unchanged.
 */
export function fromShortLink(href: string): string {
  const slash = href.indexOf("/");
  if (slash <= 0 || slash === href.length - 1) return href;
  return isKind(href.slice(0, slash)) ? `//${href}` : href;
}

/** The href of the first link with `rel`, if any. */
export function findLink(links: readonly Link[] | undefined, rel: string): string | undefined {
  return links?.find((l) => l.rel === rel)?.href;
}
