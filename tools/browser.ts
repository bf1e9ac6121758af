/**
 * Debian's Chromium driven by playwright-core (Playwright's own browser download cannot work on the project's
 * machines), with the flags that keep it off the network: every host name but 127.0.0.1 resolves to nothing, and
 * the background services that phone home are off.
 */
import { spawnSync } from "node:child_process";
import { chromium, type Browser } from "playwright-core";

export type BrowserFound = { available: true; executable: string } | { available: false; reason: string };

export function findChromium(): BrowserFound {
  const candidates = [process.env["CHROMIUM_PATH"], "chromium", "chromium-browser"].filter(
    (candidate): candidate is string => candidate !== undefined && candidate !== "",
  );
  for (const candidate of candidates) {
    const result = spawnSync("sh", ["-c", `command -v "$0"`, candidate], { encoding: "utf8" });
    if (result.status === 0 && result.stdout.trim() !== "")
      return { available: true, executable: result.stdout.trim() };
  }
  return {
    available: false,
    reason: "no Chromium (apt-get install chromium, or set CHROMIUM_PATH; scripts/browser.sh)",
  };
}

export const OFFLINE_ARGS = [
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
  "--no-proxy-server",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--disable-sync",
  "--disable-client-side-phishing-detection",
  "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication",
  "--metrics-recording-only",
  "--no-first-run",
  "--no-default-browser-check",
  "--no-sandbox", // CI runs as root, where Chromium's sandbox refuses to start
];

export function launchChromium(executable: string): Promise<Browser> {
  return chromium.launch({ executablePath: executable, headless: true, args: OFFLINE_ARGS });
}
