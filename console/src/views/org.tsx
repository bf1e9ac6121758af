/** The org: every kind with counts, a list per kind (filtered with the query API), and one object. */
import { Fragment } from "preact";
import { useMemo, useState } from "preact/hooks";
import { call, objectLinkProblem, queryKind, selfLink, servedKinds, type ApiRecord, type Session } from "../api.js";
import { toCplnYaml } from "../format.js";
import { Loading, objectHref, useLoad, VirtualTable } from "./shared.js";

export function OrgView({ session }: { session: Session }) {
  const counts = useLoad(async () => {
    const kinds = await servedKinds();
    return Promise.all(
      kinds.map(async (kind) => {
        try {
          return { kind, count: (await queryKind(session, kind)).length as number | string };
        } catch (error) {
          return { kind, count: (error as Error).message };
        }
      }),
    );
  }, [session.token]);
  if (!counts.value) return <Loading error={counts.error} label="kinds" />;
  return (
    <section>
      <h1>Org {session.org}</h1>
      <table aria-label="Kinds">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Objects you may view</th>
          </tr>
        </thead>
        <tbody>
          {counts.value.map(({ kind, count }) => (
            <tr key={kind}>
              <td>
                <a href={`#/kind/${kind}`}>{kind}</a>
              </td>
              <td class="num">{count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** `name ~ text`, or `tag:key=value` for a tag term: what the filter box sends as the query's terms. */
function termsOf(filter: string) {
  const text = filter.trim();
  if (text === "") return [];
  const tag = /^tag:([^=]+)(?:=(.*))?$/.exec(text);
  if (tag) return [tag[2] === undefined ? { op: "exists", tag: tag[1] } : { op: "=", tag: tag[1], value: tag[2] }];
  return [{ op: "~", property: "name", value: text }];
}

export function KindView({ session, kind }: { session: Session; kind: string }) {
  const [filter, setFilter] = useState("");
  const [applied, setApplied] = useState("");
  const items = useLoad(() => queryKind(session, kind, { match: "all", terms: termsOf(applied) }), [kind, applied]);
  return (
    <section>
      <h1>{kind}</h1>
      <form
        class="filter"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(filter);
        }}
      >
        <label>
          Filter (name contains, or <code>tag:key=value</code>){" "}
          <input name="filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </label>
        <button type="submit">Apply</button>
      </form>
      {items.value ? (
        <>
          <p class="count">{items.value.length} objects</p>
          <VirtualTable
            label={`${kind} objects`}
            rows={items.value}
            columns={[
              {
                title: "Name",
                width: "2fr",
                cell: (row: ApiRecord) => <a href={objectHref(selfLink(row))}>{row.name}</a>,
              },
              { title: "Description", width: "3fr", cell: (row: ApiRecord) => row.description ?? "" },
              {
                title: "Origin",
                width: "1fr",
                cell: (row: ApiRecord) =>
                  row.origin === "builtin" ? <span class="badge">builtin</span> : (row.origin ?? ""),
              },
              { title: "Version", width: "0.6fr", cell: (row: ApiRecord) => row.version ?? "" },
              { title: "Last modified", width: "1.6fr", cell: (row: ApiRecord) => row.lastModified ?? "" },
            ]}
          />
        </>
      ) : (
        <Loading error={items.error} label={kind} />
      )}
    </section>
  );
}

interface AccessReport {
  permissions: {
    name: string;
    description?: string;
    bindings: { principalLink: string; grantingPolicyLink: string; grantedPermissions: string[]; match: string }[];
  }[];
}

const TABS = ["Fields", "YAML", "JSON", "Links", "Access"] as const;

/**
 * One object, named by the link in the page's address. A crafted address must not make the console send its key
 * elsewhere or read another org: only links into the session's org are opened (no request otherwise).
 */
export function ObjectView({ session, link }: { session: Session; link: string }) {
  const problem = objectLinkProblem(session.org, link);
  if (problem)
    return (
      <section>
        <h1>Not opened</h1>
        <p role="alert" class="error">
          Refused: {problem}. The console opens objects of org {session.org} only, and sends nothing for this link.
        </p>
      </section>
    );
  return <ObjectDetails session={session} link={link} />;
}

function ObjectDetails({ session, link }: { session: Session; link: string }) {
  const [tab, setTab] = useState<(typeof TABS)[number]>("Fields");
  const record = useLoad(() => call<ApiRecord>(session, "GET", link), [link]);
  const yaml = useMemo(() => (record.value ? toCplnYaml(record.value) : ""), [record.value]);
  if (!record.value) return <Loading error={record.error} label={link} />;
  const item = record.value;
  return (
    <section>
      <h1>
        {item.kind} {item.name} {item.origin === "builtin" && <span class="badge">builtin</span>}
      </h1>
      <p class="meta">
        version {item.version ?? "–"} · created {item.created ?? "–"} · last modified {item.lastModified ?? "–"}
      </p>
      <div role="tablist" aria-label="Views of the object">
        {TABS.map((name) => (
          <button key={name} role="tab" type="button" aria-selected={tab === name} onClick={() => setTab(name)}>
            {name}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={`${tab} view`}>
        {tab === "Fields" ? (
          <dl class="fields">
            {Object.entries(item)
              .filter(([key]) => key !== "links")
              .map(([key, value]) => (
                <Fragment key={key}>
                  <dt>{key}</dt>
                  <dd>
                    {typeof value === "object" && value !== null ? <pre>{toCplnYaml(value)}</pre> : String(value)}
                  </dd>
                </Fragment>
              ))}
          </dl>
        ) : tab === "YAML" ? (
          <pre class="code" aria-label="YAML">
            {yaml}
          </pre>
        ) : tab === "JSON" ? (
          <pre class="code" aria-label="JSON">
            {JSON.stringify(item, null, 2)}
          </pre>
        ) : tab === "Links" ? (
          <ul>
            {(item.links ?? []).map((entry) => (
              <li key={entry.rel + entry.href}>
                {entry.rel}: <a href={objectHref(entry.href)}>{entry.href}</a>
              </li>
            ))}
          </ul>
        ) : (
          <ObjectAccess session={session} link={link} />
        )}
      </div>
    </section>
  );
}

/** Who can do what to this object: its access report, one row per permission, principal and granting policy. */
function ObjectAccess({ session, link }: { session: Session; link: string }) {
  const report = useLoad(() => call<AccessReport>(session, "GET", `${link}/-accessreport`), [link]);
  if (!report.value) return <Loading error={report.error} label="access report" />;
  return (
    <table aria-label="Access report">
      <thead>
        <tr>
          <th>Permission</th>
          <th>Principal</th>
          <th>Through policy</th>
          <th>Granted as</th>
          <th>Match</th>
        </tr>
      </thead>
      <tbody>
        {report.value.permissions.flatMap((permission) =>
          permission.bindings.map((binding) => (
            <tr key={permission.name + binding.principalLink + binding.grantingPolicyLink}>
              <td>{permission.name}</td>
              <td>
                <a href={`#/access/${encodeURIComponent(binding.principalLink)}`}>{binding.principalLink}</a>
              </td>
              <td>
                <a href={objectHref(binding.grantingPolicyLink)}>{binding.grantingPolicyLink}</a>
              </td>
              <td>{binding.grantedPermissions.join(", ")}</td>
              <td>{binding.match}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}
