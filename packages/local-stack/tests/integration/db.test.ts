/** The local database keeps its data across restarts and refuses edited migrations. */
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR, migrate, openPglite, PLATFORM_VERSION } from "../../src/db.ts";

const dirs: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("local database", () => {
  it("loses nothing on a restart and applies each migration once", async () => {
    const dataDir = temp("pgdata-");
    const first = await openPglite(dataDir);
    expect(await migrate(first)).toEqual(
      readdirSync(MIGRATIONS_DIR)
        .filter((f) => f.endsWith(".sql"))
        .sort(),
    );
    await first.exec(`
      insert into auth.users (id, email) values ('00000000-0000-4000-8000-0000000000c1', 'c@example.com');
      insert into public.profiles (id, full_name) values ('00000000-0000-4000-8000-0000000000c1', 'Cora C');
    `);
    await first.close();

    const second = await openPglite(dataDir);
    expect(await migrate(second)).toEqual([]);
    const { rows } = await second.query<{ full_name: string }>("select full_name from public.profiles");
    expect(rows).toEqual([{ full_name: "Cora C" }]);
    await second.close();
  }, 60_000);

  it("refuses, with what to do, a database another version of the stack made", async () => {
    const dataDir = temp("pgdata-");
    const db = await openPglite(dataDir);
    await migrate(db);
    await db.query("update supabase_migrations.platform set version = $1", [PLATFORM_VERSION - 1]);
    await expect(migrate(db)).rejects.toThrow(
      /made by another version of the local stack.*npm run preview -- --reset/s,
    );
    await db.query("update supabase_migrations.platform set version = $1", [PLATFORM_VERSION]);
    expect(await migrate(db)).toEqual([]);
    await db.close();
  }, 60_000);

  it("refuses a migration that changed after it was applied", async () => {
    const migrations = temp("migrations-");
    cpSync(MIGRATIONS_DIR, migrations, { recursive: true });
    const db = await openPglite();
    await migrate(db, migrations);
    const [file] = readdirSync(migrations);
    writeFileSync(join(migrations, file!), "-- edited\nselect 1;\n");
    await expect(migrate(db, migrations)).rejects.toThrow(/changed after it was applied/);
    await db.close();
  }, 60_000);
});
