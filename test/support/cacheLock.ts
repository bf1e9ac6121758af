/**
 * One lock per cache directory for what tests make once and share (the plugin's archive and installation, a packed
 * project's node_modules): test files run two at a time and may both need the same thing. The lock is a directory
 * (`mkdir` is atomic everywhere) holding its holder's pid; a lock whose holder died is taken over.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

function tryLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(fs.readFileSync(path.join(lock, "pid"), { encoding: "utf8", flag: "a+" }) || "0");
    if (holder > 0 && !alive(holder)) fs.rmSync(lock, { recursive: true, force: true });
    return false;
  }
  fs.writeFileSync(path.join(lock, "pid"), String(process.pid));
  return true;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs `fn` holding `dir`'s lock, waiting (blocked) for it. */
export function lockedSync<T>(dir: string, fn: () => T): T {
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, ".lock");
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  while (!tryLock(lock)) Atomics.wait(sleeper, 0, 0, 250);
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs `fn` holding `dir`'s lock, waiting for it without blocking this process. */
export async function locked<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, ".lock");
  while (!tryLock(lock)) await new Promise((resolve) => setTimeout(resolve, 250));
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** `from` copied to `to` as hard links (`cp -al`: no bytes copied), or a plain copy where that fails (not GNU cp). */
export function linkCopy(from: string, to: string): void {
  const { status } = spawnSync("cp", ["-al", from, to], { stdio: "ignore" });
  if (status !== 0) fs.cpSync(from, to, { recursive: true });
}
