/**
 * A throw-away PostgreSQL server in a temporary folder, for running the integration suite on a
 * real server as well as on PGlite. initdb refuses to run as root, so as root the cluster
 * belongs to the `postgres` user.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
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
  url: string;
  /** Stops the server and removes its data. */
  stop(): void;
  /** Stops the server, keeping its data: the database is unavailable until `resume`. */
  halt(): void;
  /** Starts the halted server again on the same port and data. */
  resume(): void;
}

export function startPostgres(port = 55_000 + Math.floor(Math.random() * 5_000)): PostgresServer {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "pg-"));
  const root = userInfo().uid === 0;
  const asOwner = (command: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, command), args, { stdio: "pipe" });
  if (root) {
    const { uid, gid } = {
      uid: Number(execFileSync("id", ["-u", "postgres"]).toString()),
      gid: Number(execFileSync("id", ["-g", "postgres"]).toString()),
    };
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  asOwner("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const start = () =>
    asOwner("pg_ctl", [
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "-w",
      "start",
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
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
