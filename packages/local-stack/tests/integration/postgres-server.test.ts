/**
 * The integration suite's throw-away PostgreSQL server (packages/local-stack/src/postgres-server.ts)
 * asks every connection for its superuser's password (scram-sha-256), over TCP and its socket
 * alike: a password made for that server and given only in its URL. With `trust`, any user or
 * process of a shared machine could connect as the superuser while the tests ran.
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgresServer, startPostgres } from "../../src/postgres-server.ts";

/** Connects with `url` and runs `sql`; the rows, or the error the connection ended with. */
async function query(url: string, sql: string): Promise<Record<string, unknown>[] | Error> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return (await client.query(sql)).rows;
  } catch (error) {
    return error as Error;
  } finally {
    await client.end().catch(() => {});
  }
}

describe("the throw-away PostgreSQL server", () => {
  let server: PostgresServer;
  beforeAll(() => {
    server = startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it("accepts the URL it gives, with a password of its own, and refuses a connection without it or with another", async () => {
    const url = new URL(server.url);
    expect(url.username).toBe("postgres");
    expect(url.password.length).toBeGreaterThanOrEqual(32);
    expect(await query(server.url, "select current_user as who")).toEqual([{ who: "postgres" }]);

    url.password = "";
    const without = await query(url.href, "select 1");
    expect(without).toBeInstanceOf(Error);
    // The server asked for the password (SCRAM) before anything else.
    expect((without as Error).message).toMatch(/password/);

    url.password = "postgres";
    const wrong = await query(url.href, "select 1");
    expect(wrong).toBeInstanceOf(Error);
    expect((wrong as pg.DatabaseError).code).toBe("28P01");
    expect((wrong as Error).message).toBe('password authentication failed for user "postgres"');
  });

  it("trusts no connection: every rule of its pg_hba.conf, the local socket's too, asks for scram-sha-256", async () => {
    const rules = (await query(server.url, "select type, auth_method from pg_hba_file_rules")) as {
      type: string;
      auth_method: string;
    }[];
    expect(new Set(rules.map((rule) => rule.type))).toEqual(new Set(["local", "host"]));
    expect(rules.filter((rule) => rule.auth_method !== "scram-sha-256")).toEqual([]);
  });

  it("starts on another port when the one it picked is taken (a random port can be another server's)", async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const taken = (other.address() as AddressInfo).port;
    const picks = [taken, taken + 1 === 65_536 ? taken - 1 : taken + 1];
    let second: PostgresServer | undefined;
    try {
      second = startPostgres(undefined, () => picks.shift()!);
      expect(picks).toEqual([]);
      expect(new URL(second.url).port).not.toBe(String(taken));
      expect(await query(second.url, "select 1 as one")).toEqual([{ one: 1 }]);
      // A port the caller chose is not changed.
      expect(() => startPostgres(taken)).toThrow(/could not start server/);
    } finally {
      second?.stop();
      await new Promise((resolve) => other.close(resolve));
    }
  }, 60_000);
});
