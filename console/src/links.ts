/**
 * Where the console's key may go (no DOM here, so the rules are unit-tested as they are): requests only to paths of
 * the server that served the page, and the object view only to links into the signed-in org.
 */

/**
 * Why `path` is not a path of the server at `origin`, or undefined when it is: a path (`/…`), not `//host/…` or
 * `http://…`, that the browser sends as it is. A path it would rewrite first — dot segments (`..`, `%2e%2e`), a
 * fragment, a backslash — is refused: built from a crafted part (`#/kind/..%2F..%2F_cpln-local%2F…%23`), it would
 * reach another endpoint of this server with the key.
 */
export function pathProblem(path: string, origin: string): string | undefined {
  if (!path.startsWith("/") || path.startsWith("//")) return `${path} is not a path of this server`;
  const url = new URL(path, origin);
  if (url.origin !== origin) return `${path} is not a path of this server`;
  if (url.pathname + url.search !== path) return `${path} is not a plain path (the browser would send ${url.pathname})`;
  return undefined;
}

/** Why `kind` is not a kind's name (lowercase letters and digits, as the API's paths name them), or undefined. */
export function kindProblem(kind: string): string | undefined {
  return /^[a-z0-9]+$/.test(kind) ? undefined : `${kind} is not a kind`;
}

/**
 * Why the console will not open `link` as an object of `org`, or undefined when it will: an object link is a path
 * `/org/<org>` or `/org/<org>/…` of this server, in plain segments — no query, fragment, backslash, empty segment or
 * dot segment (`..` and `%2e%2e` alike: the browser would resolve them to another path before sending the key).
 */
export function objectLinkProblem(org: string, link: string): string | undefined {
  const prefix = `/org/${encodeURIComponent(org)}`;
  if (link !== prefix && !link.startsWith(`${prefix}/`)) return `${link} is not a link into org ${org}`;
  const segments = link.split("/").slice(1);
  if (/[?#\\\s]/.test(link) || segments.some((s) => s === "" || /^(\.|%2e){1,2}$/i.test(s)))
    return `${link} is not a plain object link`;
  return undefined;
}
