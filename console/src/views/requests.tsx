/**
 * What was sent: the request log, live (polled each second), filterable by principal, kind and status. Requests less
 * than two seconds apart form one burst (a `pulumi up` shows as one). A PATCH opens as its directive body and as a
 * field-by-field diff of the object before and after. The console's own requests (marked by it, see CONSOLE_HEADERS)
 * are left out unless asked for, so what a program sent stands alone.
 */
import { Fragment } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { call, type Session } from "../api.js";
import { jsonChanges } from "../format.js";

export interface LoggedRequest {
  seq: number;
  time: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  principal?: string;
  /** `console`: one of the console's own requests. */
  client?: string;
  body?: unknown;
  change?: { before: unknown; after: unknown };
}

const BURST_GAP_MS = 2000;

/** The kind a path addresses: the segment after the org (or after the gvc). */
export function kindOfPath(path: string): string {
  const parts = path.split("?")[0]!.split("/");
  if (parts[1] !== "org") return "";
  return parts[3] === "gvc" && parts.length > 5 ? (parts[5] ?? "") : (parts[3] ?? "org");
}

export function RequestsView({ session }: { session: Session }) {
  const [requests, setRequests] = useState<LoggedRequest[]>([]);
  const [error, setError] = useState("");
  const [filters, setFilters] = useState({ principal: "", kind: "", status: "" });
  const [open, setOpen] = useState<number | undefined>();
  const [withConsole, setWithConsole] = useState(false);
  useEffect(() => {
    let live = true;
    const poll = async () => {
      try {
        const list = await call<{ items: LoggedRequest[] }>(session, "GET", "/_cpln-local/requests");
        if (live) {
          setRequests(list.items);
          setError("");
        }
      } catch (failure) {
        if (live) setError((failure as Error).message);
      }
    };
    void poll();
    const timer = setInterval(poll, 1000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [session.token]);
  const principals = useMemo(
    () => [...new Set(requests.map((r) => r.principal ?? ""))].filter(Boolean).sort(),
    [requests],
  );
  const fromConsole = requests.filter((r) => r.client === "console").length;
  const shown = requests.filter(
    (r) =>
      (withConsole || r.client !== "console") &&
      (!filters.principal || r.principal === filters.principal) &&
      (!filters.kind || kindOfPath(r.path) === filters.kind) &&
      (!filters.status || String(r.status).startsWith(filters.status)),
  );
  const bursts: LoggedRequest[][] = [];
  for (const request of shown) {
    const last = bursts[bursts.length - 1];
    const previous = last?.[last.length - 1];
    if (last && previous && Date.parse(request.time) - Date.parse(previous.time) < BURST_GAP_MS) last.push(request);
    else bursts.push([request]);
  }
  const set = (key: keyof typeof filters) => (event: Event) =>
    setFilters({ ...filters, [key]: (event.currentTarget as HTMLInputElement).value });
  return (
    <section>
      <h1>Requests</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="filter">
        <label>
          Principal{" "}
          <select name="principal" value={filters.principal} onChange={set("principal")}>
            <option value="">any</option>
            {principals.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind <input name="kind" value={filters.kind} onInput={set("kind")} size={12} />
        </label>
        <label>
          Status{" "}
          <select name="status" value={filters.status} onChange={set("status")}>
            <option value="">any</option>
            <option value="2">2xx</option>
            <option value="4">4xx</option>
            <option value="5">5xx</option>
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            name="console"
            checked={withConsole}
            onChange={(event) => setWithConsole(event.currentTarget.checked)}
          />{" "}
          Show the console's own requests ({fromConsole})
        </label>
      </div>
      <p class="count">
        {shown.length} requests in {bursts.length} bursts
        {withConsole || fromConsole === 0 ? "" : ` (${fromConsole} of the console's own not shown)`}
      </p>
      {bursts
        .slice()
        .reverse()
        .map((burst) => (
          <section
            class="burst"
            key={burst[0]!.seq}
            aria-label={`Burst of ${burst.length} requests at ${burst[0]!.time}`}
          >
            <h2>
              {burst[0]!.time} · {burst.length} requests
            </h2>
            <table>
              <tbody>
                {burst.map((r) => (
                  <Fragment key={r.seq}>
                    <tr class={`${r.status >= 400 ? "failed" : ""}${r.client === "console" ? " console" : ""}`}>
                      <td>
                        <button
                          type="button"
                          aria-expanded={open === r.seq}
                          onClick={() => setOpen(open === r.seq ? undefined : r.seq)}
                        >
                          {r.method}
                        </button>
                      </td>
                      <td class="path">{r.path}</td>
                      <td>{r.status}</td>
                      <td class="num">{r.durationMs} ms</td>
                      <td>
                        {r.principal ?? ""}
                        {r.client === "console" && (
                          <>
                            {" "}
                            <span class="badge">console</span>
                          </>
                        )}
                      </td>
                    </tr>
                    {open === r.seq && (
                      <tr>
                        <td colSpan={5}>
                          <RequestDetail request={r} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </section>
        ))}
    </section>
  );
}

function RequestDetail({ request }: { request: LoggedRequest }) {
  const changes = request.change ? jsonChanges(request.change.before, request.change.after) : undefined;
  return (
    <div class="detail">
      <h3>Body</h3>
      <pre class="code" aria-label="Request body">
        {request.body === undefined ? "(none)" : JSON.stringify(request.body, null, 2)}
      </pre>
      {changes && (
        <>
          <h3>Change to the object</h3>
          <table class="diff" aria-label="Diff">
            <thead>
              <tr>
                <th>Field</th>
                <th>Before</th>
                <th>After</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((change) => (
                <tr key={change.path} class={change.kind}>
                  <td>{change.path}</td>
                  <td>{change.kind === "added" ? "" : JSON.stringify(change.before)}</td>
                  <td>{change.kind === "removed" ? "" : JSON.stringify(change.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
