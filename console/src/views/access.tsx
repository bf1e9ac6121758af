/**
 * Who can do what: for a principal, every grant it holds (directly or through a group, by link or by the group's
 * memberQuery) with the policy and binding that give it; and the whole picture — policies → principals → targets —
 * drawn for the bindings the filter leaves (up to PICTURE_LIMIT, so it stays readable at hundreds of policies) above
 * one filterable table of every binding.
 */
import { useMemo, useState } from "preact/hooks";
import { queryKind, selfLink, type ApiRecord, type QuerySpec, type Session } from "../api.js";
import { Loading, objectHref, useLoad, VirtualTable } from "./shared.js";

interface Binding {
  permissions: string[];
  principalLinks: string[];
}

interface Grant {
  policy: string;
  policyLink: string;
  targetKind: string;
  targets: string;
  permissions: string[];
  principals: string[];
}

/** `all`, the target links, or the target query in one line. */
function targetsOf(policy: ApiRecord): string {
  if (policy["target"] === "all") return `every ${String(policy["targetKind"])}`;
  const parts: string[] = [...((policy["targetLinks"] as string[] | undefined) ?? [])];
  const query = policy["targetQuery"] as { spec?: { terms?: unknown[] } } | undefined;
  if (query?.spec?.terms?.length) parts.push(`query ${JSON.stringify(query.spec.terms)}`);
  return parts.join(", ") || "nothing";
}

function grantsOf(policies: ApiRecord[]): Grant[] {
  return policies.flatMap((policy) =>
    ((policy["bindings"] as Binding[] | undefined) ?? []).map((binding) => ({
      policy: policy.name,
      policyLink: selfLink(policy),
      targetKind: String(policy["targetKind"]),
      targets: targetsOf(policy),
      permissions: binding.permissions,
      principals: binding.principalLinks,
    })),
  );
}

export function AccessView({ session, principal }: { session: Session; principal: string }) {
  const data = useLoad(async () => {
    const [policies, groups, accounts, users] = await Promise.all(
      ["policy", "group", "serviceaccount", "user"].map((kind) => queryKind(session, kind).catch(() => [])),
    );
    return {
      grants: grantsOf(policies ?? []),
      groups: groups ?? [],
      principals: [...(groups ?? []), ...(accounts ?? []), ...(users ?? [])],
    };
  }, [session.token]);
  const [filter, setFilter] = useState("");
  const shown = useMemo(() => {
    const text = filter.trim().toLowerCase();
    const grants = data.value?.grants ?? [];
    if (text === "") return grants;
    return grants.filter((grant) =>
      [grant.policy, grant.targetKind, grant.targets, ...grant.permissions, ...grant.principals].some((value) =>
        value.toLowerCase().includes(text),
      ),
    );
  }, [data.value, filter]);
  if (!data.value) return <Loading error={data.error} label="policies" />;
  const { grants, groups, principals } = data.value;
  const title = `${shown.length} of ${grants.length} bindings`;
  return (
    <section>
      <h1>Who can do what</h1>
      <label>
        Principal{" "}
        <select
          name="principal"
          value={principal}
          onChange={(event) => (location.hash = `#/access/${encodeURIComponent(event.currentTarget.value)}`)}
        >
          <option value="">(choose a principal)</option>
          {principals.map((record) => (
            <option key={selfLink(record)} value={selfLink(record)}>
              {record.kind} {record.name}
            </option>
          ))}
        </select>
      </label>
      {principal && <PrincipalGrants session={session} principal={principal} grants={grants} groups={groups} />}
      <h2>Policies → principals → targets</h2>
      <label>
        Filter <input name="policy-filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </label>
      <p class="count">{title}</p>
      <AccessPicture grants={shown} />
      <VirtualTable
        label="Policy bindings"
        rows={shown}
        rowHeight={30}
        columns={[
          { title: "Policy", width: "1.4fr", cell: (g: Grant) => <a href={objectHref(g.policyLink)}>{g.policy}</a> },
          { title: "Permissions", width: "1fr", cell: (g: Grant) => g.permissions.join(", ") },
          { title: "Principals", width: "2fr", cell: (g: Grant) => g.principals.join(", ") },
          { title: "Targets", width: "2fr", cell: (g: Grant) => g.targets },
        ]}
      />
    </section>
  );
}

/**
 * The groups `principal` belongs to: by `memberLinks`, and for a user by a group's `memberQuery` (the API evaluates
 * the query; the console only asks it, through the query endpoint, whether the principal is among the users it finds).
 */
async function groupsOf(session: Session, principal: string, groups: ApiRecord[]): Promise<string[]> {
  const isUser = /\/user\/[^/]+$/.test(principal);
  const member = await Promise.all(
    groups.map(async (group) => {
      if (((group["memberLinks"] as string[] | undefined) ?? []).includes(principal)) return true;
      const query = group["memberQuery"] as { spec?: QuerySpec } | undefined;
      if (!isUser || !query) return false;
      const users = await queryKind(session, "user", query.spec ?? {}).catch(() => []);
      return users.some((user) => selfLink(user) === principal);
    }),
  );
  return groups.filter((_, index) => member[index]).map(selfLink);
}

/** The principal's grants: bindings naming it, or a group it belongs to. */
function PrincipalGrants({
  session,
  principal,
  grants,
  groups,
}: {
  session: Session;
  principal: string;
  grants: Grant[];
  groups: ApiRecord[];
}) {
  const membership = useLoad(() => groupsOf(session, principal, groups), [principal, groups]);
  if (!membership.value) return <Loading error={membership.error} label="group memberships" />;
  const memberOf = membership.value;
  const through = (grant: Grant) =>
    grant.principals.includes(principal) ? "directly" : `group ${grant.principals.find((p) => memberOf.includes(p))}`;
  const mine = grants.filter((grant) => grant.principals.some((p) => p === principal || memberOf.includes(p)));
  return (
    <>
      <h2>
        Grants of <a href={objectHref(principal)}>{principal}</a>
      </h2>
      <p>Member of: {memberOf.length ? memberOf.join(", ") : "no group"}</p>
      <table aria-label="Grants of the principal">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Targets</th>
            <th>Permissions</th>
            <th>Policy</th>
            <th>Through</th>
          </tr>
        </thead>
        <tbody>
          {mine.map((grant) => (
            <tr key={grant.policyLink + grant.permissions.join()}>
              <td>{grant.targetKind}</td>
              <td>{grant.targets}</td>
              <td>{grant.permissions.join(", ")}</td>
              <td>
                <a href={objectHref(grant.policyLink)}>{grant.policy}</a>
              </td>
              <td>{through(grant)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The most bindings the picture draws; past it, the filter narrows them (the table below always holds them all). */
const PICTURE_LIMIT = 60;
const NODE_HEIGHT = 24;
const COLUMN_X = [0, 380, 760];
const NODE_WIDTH = 300;

/**
 * Policies → principals → targets as a drawing: one column per role, one box per distinct policy, principal and
 * target set, a line from a policy to each principal its bindings name and from the principal to the policy's targets
 * (labelled with the permissions). Boxes are links (keyboard-reachable) to the object.
 */
function AccessPicture({ grants }: { grants: Grant[] }) {
  if (grants.length === 0) return null;
  if (grants.length > PICTURE_LIMIT)
    return (
      <p class="picture-note">
        The picture draws up to {PICTURE_LIMIT} bindings: narrow the filter to draw these {grants.length}.
      </p>
    );
  const columns: string[][] = [[], [], []];
  const row = (column: number, name: string): number => {
    const names = columns[column]!;
    const index = names.indexOf(name);
    return index >= 0 ? index : names.push(name) - 1;
  };
  const policyLinks = new Map<string, string>();
  const edges: { from: [number, number]; to: [number, number]; label?: string }[] = [];
  for (const grant of grants) {
    policyLinks.set(grant.policy, grant.policyLink);
    const policyRow = row(0, grant.policy);
    const targetRow = row(2, grant.targets);
    for (const principal of grant.principals) {
      const principalRow = row(1, principal);
      edges.push({ from: [0, policyRow], to: [1, principalRow] });
      edges.push({ from: [1, principalRow], to: [2, targetRow], label: grant.permissions.join(", ") });
    }
  }
  const height = Math.max(...columns.map((names) => names.length)) * (NODE_HEIGHT + 8) + 8;
  const y = (index: number) => 8 + index * (NODE_HEIGHT + 8) + NODE_HEIGHT / 2;
  const href = (column: number, name: string) =>
    column === 0 ? objectHref(policyLinks.get(name)!) : column === 1 ? objectHref(name) : undefined;
  return (
    <svg
      class="picture"
      role="img"
      aria-label="Access picture"
      viewBox={`0 0 ${COLUMN_X[2]! + NODE_WIDTH} ${height}`}
      width={COLUMN_X[2]! + NODE_WIDTH}
      height={height}
    >
      {edges.map(({ from, to, label }, index) => {
        const x1 = COLUMN_X[from[0]]! + NODE_WIDTH;
        const x2 = COLUMN_X[to[0]]!;
        const [y1, y2] = [y(from[1]), y(to[1])];
        const middle = (x1 + x2) / 2;
        return (
          <g key={index}>
            <path class="edge" d={`M${x1},${y1} C${middle},${y1} ${middle},${y2} ${x2},${y2}`} />
            {label && (
              <text class="edge-label" x={middle} y={(y1 + y2) / 2 - 3} text-anchor="middle">
                {label}
              </text>
            )}
          </g>
        );
      })}
      {columns.map((names, column) =>
        names.map((name, index) => {
          const box = (
            <g data-column={["policy", "principal", "target"][column]}>
              <rect
                class="node"
                x={COLUMN_X[column]}
                y={y(index) - NODE_HEIGHT / 2}
                width={NODE_WIDTH}
                height={NODE_HEIGHT}
                rx={4}
              />
              <text class="node-label" x={COLUMN_X[column]! + 8} y={y(index) + 4}>
                <title>{name}</title>
                {name.length > 44 ? `…${name.slice(-43)}` : name}
              </text>
            </g>
          );
          const link = href(column, name);
          return link ? (
            <a key={`${column}:${name}`} href={link}>
              {box}
            </a>
          ) : (
            <g key={`${column}:${name}`}>{box}</g>
          );
        }),
      )}
    </svg>
  );
}
