/** The emulator's actions for the admin: reset the org, export its state, import a state — each confirmed first. */
import { useState } from "preact/hooks";
import { call, type Session } from "../api.js";

export function EmulatorView({ session }: { session: Session }) {
  const [message, setMessage] = useState("");
  const stateUrl = `/_cpln-local/org/${encodeURIComponent(session.org)}/state`;
  const run = async (what: string, action: () => Promise<string>) => {
    if (!confirm(`${what}?`)) return;
    try {
      setMessage(await action());
    } catch (error) {
      setMessage(`${what} failed: ${(error as Error).message}`);
    }
  };
  const reset = () =>
    run(`Reset org ${session.org} to its seeded state (every change is lost)`, async () => {
      await call(session, "POST", `/_cpln-local/org/${encodeURIComponent(session.org)}/reset`);
      return `Org ${session.org} reset.`;
    });
  const exportState = async () => {
    try {
      const state = await call<unknown>(session, "GET", stateUrl);
      const url = URL.createObjectURL(new Blob([JSON.stringify(state, null, 2)], { type: "application/json" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = `${session.org}-state.json`;
      link.click();
      URL.revokeObjectURL(url);
      setMessage(`Exported ${(state as { records: unknown[] }).records.length} records.`);
    } catch (error) {
      setMessage(`Export failed: ${(error as Error).message}`);
    }
  };
  const importState = (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (!file) return;
    void run(`Replace org ${session.org} by the state in ${file.name}`, async () => {
      const result = await call<{ records: number }>(session, "PUT", stateUrl, JSON.parse(await file.text()));
      return `Imported ${result.records} records.`;
    });
  };
  return (
    <section>
      <h1>Emulator</h1>
      <p>
        <button type="button" onClick={reset}>
          Reset org
        </button>{" "}
        <button type="button" onClick={exportState}>
          Export state
        </button>{" "}
        <label>
          Import state <input type="file" name="import" accept="application/json" onChange={importState} />
        </label>
      </p>
      {message && <p role="status">{message}</p>}
    </section>
  );
}
