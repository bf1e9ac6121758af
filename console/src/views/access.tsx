/**
 * Who can do what: for a principal, every grant it holds (directly or through a group) with the policy and binding
 * that give it; and the whole picture — policies → principals → targets — as one filterable table that stays readable
 * at hundreds of policies.
 */
import { useMemo, useState } from "preact/hooks";
import { queryKind, selfLink, type ApiRecord, type Session } from "../api.js";
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
      {principal && <PrincipalGrants principal={principal} grants={grants} groups={groups} />}
      <h2>Policies → principals → targets</h2>
      <label>
        Filter <input name="policy-filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </label>
      <p class="count">
        {shown.length} of {grants.length} bindings
      </p>
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

/** The principal's grants: bindings naming it, or a group whose members include it. */
function PrincipalGrants({ principal, grants, groups }: { principal: string; grants: Grant[]; groups: ApiRecord[] }) {
  const memberOf = groups
    .filter((group) => ((group["memberLinks"] as string[] | undefined) ?? []).includes(principal))
    .map(selfLink);
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
