/**
 * A throw-away PostgreSQL server in a temporary folder, for running the integration suite on a
 * real server as well as on PGlite. initdb refuses to run as root, so as root the cluster
 * belongs to the `postgres` user.
 *
 * It listens on 127.0.0.1 and a socket in its folder, and asks every connection, those from this
 * machine included, for the password of its superuser (scram-sha-256): a password made for each
 * server and given only in its `url`. With `trust`, any user or process of a shared machine could
 * have connected as the superuser while the tests ran.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(base, version, "bin/initdb"))) return join(base, version, "bin");
  throw new Error("PostgreSQL server binaries not found: apt-get install postgresql, or set PG_BIN");
}

export interface PostgresServer {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`: the only place the password is. */
  url: string;
  /** Stops the server and removes its data. */
  stop(): void;
  /** Stops the server, keeping its data: the database is unavailable until `resume`. */
  halt(): void;
  /** Starts the halted server again on the same port and data. */
  resume(): void;
}

/**
 * A port for a server: below Linux's ephemeral range (32768 and up), which the machine's outgoing
 * connections and every server started on port 0 draw from, so only another listener can hold it.
 */
const randomPort = () => 25_000 + Math.floor(Math.random() * 7_000);

/** Tries to start a server again on another port, this many times, when its port is taken. */
const PORT_ATTEMPTS = 5;

/**
 * Starts a server on `port`, or, by default, on a random port, trying others while the one
 * picked is taken (`pickPort` picks them: tests pass their own).
 */
export function startPostgres(port?: number, pickPort: () => number = randomPort): PostgresServer {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "pg-"));
  const root = userInfo().uid === 0;
  const asOwner = (command: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, command), args, { stdio: "pipe" });
  const owner = root
    ? {
        uid: Number(execFileSync("id", ["-u", "postgres"]).toString()),
        gid: Number(execFileSync("id", ["-g", "postgres"]).toString()),
      }
    : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  // initdb reads the password from a file (never a command line, which `ps` shows), readable by
  // the cluster's owner alone and removed once read.
  const password = randomBytes(24).toString("base64url");
  const passwordFile = join(dir, "password");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(passwordFile, owner.uid, owner.gid);
  const data = join(dir, "data");
  try {
    asOwner("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--pwfile",
      passwordFile,
      "-A",
      "scram-sha-256",
      "--no-sync",
      "-E",
      "UTF8",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(passwordFile, { force: true });
  }
  const log = join(dir, "server.log");
  let listening = port ?? pickPort();
  const start = () =>
    asOwner("pg_ctl", [
      "-D",
      data,
      "-l",
      log,
      "-o",
      `-p ${listening} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "-w",
      "start",
    ]);
  // A random port may be another server's: then another one, unless the caller chose it.
  for (let attempt = 1; ; attempt++) {
    try {
      start();
      break;
    } catch (error) {
      const taken = existsSync(log) && readFileSync(log, "utf8").includes("Address already in use");
      if (!taken || port !== undefined || attempt === PORT_ATTEMPTS) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      listening = pickPort();
    }
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${listening}/postgres`;
  return {
    url,
    halt: () => asOwner("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    resume: start,
    stop() {
      try {
        asOwner("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
