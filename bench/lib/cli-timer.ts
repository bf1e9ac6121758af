/**
 * A `pulumi` that times each of its runs, for bench/app.ts: one Automation API call is several CLI runs (`stack.up`
 * runs `pulumi up`, then `stack output` twice and `stack history` for the outputs and the summary,
 * @pulumi/pulumi/automation/stack.js), and only the first is the engine command a CLI user runs. The directory this
 * makes is a `bin/` beside the engine's: every file a link to the engine's, but `pulumi`, a bash script that runs the
 * real one and appends `<start> <end> <exit code> <first two args>` (bash's EPOCHREALTIME, no process spawned) to a
 * log. The engine finds its language hosts next to its own executable, which is still the real one.
 */
import * as fs from "node:fs";
import path from "node:path";

export interface CliRun {
  /** The command: its first two arguments (`up --yes`, `stack output`, `destroy --yes`). */
  command: string;
  seconds: number;
  exitCode: number;
}

export interface CliTimer {
  /** The timed `bin/` (give its parent as the Automation API's `root`). */
  binDir: string;
  /** The runs logged since the last call, in the order they ended; the log is emptied. */
  take(): CliRun[];
}

export function cliTimer(realBinDir: string, dir: string): CliTimer {
  const binDir = path.join(dir, "bin");
  fs.mkdirSync(binDir, { recursive: true });
  for (const file of fs.readdirSync(realBinDir)) {
    if (file !== "pulumi") fs.symlinkSync(path.join(realBinDir, file), path.join(binDir, file));
  }
  const log = path.join(dir, "cli-runs.log");
  fs.writeFileSync(log, "");
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  fs.writeFileSync(
    path.join(binDir, "pulumi"),
    "#!/usr/bin/env bash\nstart=$EPOCHREALTIME\n" +
      `${quote(path.join(realBinDir, "pulumi"))} "$@"\ncode=$?\n` +
      `printf '%s %s %s %s %s\\n' "$start" "$EPOCHREALTIME" "$code" "$1" "$2" >> ${quote(log)}\nexit $code\n`,
    { mode: 0o755 },
  );
  return {
    binDir,
    take() {
      const lines = fs.readFileSync(log, "utf8").split("\n").filter(Boolean);
      fs.writeFileSync(log, "");
      return lines.map((line) => {
        // EPOCHREALTIME is written with the locale's decimal separator.
        const [start, end, code, ...args] = line.split(" ");
        const time = (text = ""): number => Number(text.replace(",", "."));
        return { command: args.join(" ").trim(), seconds: time(end) - time(start), exitCode: Number(code) };
      });
    },
  };
}
