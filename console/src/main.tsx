/** The cpln-local console: sign in, then the org, who can do what, what was sent, and the emulator's actions. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { fetchPublic, loadSession, saveSession, signIn, type Session } from "./api.js";
import { AccessView } from "./views/access.js";
import { EmulatorView } from "./views/emulator.js";
import { KindView, ObjectView, OrgView } from "./views/org.js";
import { RequestsView } from "./views/requests.js";

/** `#/kind/policy` → ["kind", "policy"]; `#/object//org/o/policy/p` → ["object", "/org/o/policy/p"]. */
function route(hash: string): [string, string] {
  const body = hash.replace(/^#\/?/, "");
  const slash = body.indexOf("/");
  return slash < 0 ? [body, ""] : [body.slice(0, slash), decodeURIComponent(body.slice(slash + 1))];
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return hash;
}

function SignIn({ onSession }: { onSession: (session: Session) => void }) {
  const [org, setOrg] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    fetchPublic("/about")
      .then((response) => response.json() as Promise<{ org?: string }>)
      .then((about) => setOrg((current) => current || about.org || ""))
      .catch(() => undefined);
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      onSession(await signIn(org.trim(), token.trim()));
    } catch (failure) {
      setError(`Sign-in failed: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>cpln-local console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Org <input name="org" value={org} onInput={(e) => setOrg(e.currentTarget.value)} required />
        </label>
        <label>
          Key or token{" "}
          <input
            name="token"
            type="password"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
            required
          />
        </label>
        <p class="hint">
          The admin key, a service-account key or a JWT. Kept for this tab only; the console shows what that principal
          may see.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession());
  const [view, arg] = route(useHash());
  if (!session) {
    return (
      <SignIn
        onSession={(next) => {
          saveSession(next);
          setSession(next);
          location.hash = "#/";
        }}
      />
    );
  }
  const signOut = () => {
    saveSession(undefined);
    setSession(undefined);
  };
  const nav: [string, string][] = [
    ["#/", "Org"],
    ["#/access", "Access"],
    ...(session.admin
      ? ([
          ["#/requests", "Requests"],
          ["#/emulator", "Emulator"],
        ] as [string, string][])
      : []),
  ];
  return (
    <>
      <header>
        <strong>cpln-local</strong> <span class="org">org {session.org}</span>
        <nav aria-label="Main">
          {nav.map(([href, label]) => (
            <a
              key={href}
              href={href}
              aria-current={`#/${view}` === href || (href === "#/" && view === "") ? "page" : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <span class="who">{session.admin ? "admin key" : "signed in"}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {view === "kind" ? (
          <KindView session={session} kind={arg} />
        ) : view === "object" ? (
          <ObjectView session={session} link={arg} />
        ) : view === "access" ? (
          <AccessView session={session} principal={arg} />
        ) : view === "requests" && session.admin ? (
          <RequestsView session={session} />
        ) : view === "emulator" && session.admin ? (
          <EmulatorView session={session} />
        ) : (
          <OrgView session={session} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
