/**
 * src/lib/database.types.ts is what supabase/migrations/ give (tools/db-types.ts): a migration
 * without `npm run db:types` fails here, and so does a hand edit of the file.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "@advisor-accelerator/local-stack";
import { databaseTypes, difference, TYPES_FILE } from "../../tools/db-types.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");
const committed = () => readFileSync(TYPES_FILE, "utf8");

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The project's migrations and one more, in a folder of their own. */
function migrationsWith(sql: string): string {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  dirs.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  writeFileSync(join(dir, "29991231000000_next.sql"), sql);
  return dir;
}

/** The block of the generated file that types one table (up to its Relationships). */
function tableBlock(source: string, table: string): string {
  const start = source.indexOf(`      ${table}: {\n`);
  expect(start, `${table} is in the file`).toBeGreaterThan(-1);
  return source.slice(start, source.indexOf("Relationships:", start));
}

describe("database types", () => {
  it("are what the migrations give (npm run db:types writes them)", async () => {
    const generated = await databaseTypes();
    expect(difference(committed(), generated), "src/lib/database.types.ts: run npm run db:types").toBeNull();
    // What the browser may reach, and nothing the service role alone may touch.
    expect(generated).toContain("stripe_user_orders: {");
    expect(generated).toContain("has_program_access: {");
    // Staff read the leads (the desk), but only the columns granted: not the e-mails' bookkeeping.
    expect(tableBlock(generated, "leads")).toContain("utm_source: string | null;");
    expect(tableBlock(generated, "leads")).not.toContain("notify_error");
    expect(generated).not.toContain("record_stripe_event");
    expect(generated).not.toContain("staff_add");
  }, 60_000);

  it("change with a migration, and --check names the difference", async () => {
    const migrations = migrationsWith(`
      alter table public.profiles add column company text;
      grant update (company) on public.profiles to authenticated;
      create table public.audit_log (id bigint primary key, note text);
    `);
    const generated = await databaseTypes({ migrations });

    const profiles = tableBlock(generated, "profiles");
    const [row, insert, update] = ["Row", "Insert", "Update"].map((part) =>
      profiles.slice(profiles.indexOf(`${part}: {`), profiles.indexOf("};", profiles.indexOf(`${part}: {`))),
    );
    expect(row).toContain("company: string | null;");
    expect(update).toContain("company?: string | null;");
    // Granted only update: an insert may not send it.
    expect(insert).not.toContain("company");
    // A table the migration grants the browser's roles nothing on stays out.
    expect(generated).not.toContain("audit_log");

    // The difference is those two lines, and nothing else.
    const changed = difference(committed(), generated)!
      .split("\n")
      .filter((line) => !line.startsWith("@@"))
      .map((line) => line.replace(/\s+/g, " "));
    expect(changed).toEqual(["+ company: string | null;", "+ company?: string | null;"]);

    const check = run(process.execPath, ["tools/db-types.ts", "--check", "--migrations", migrations], { cwd: root });
    await expect(check).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/src\/lib\/database\.types\.ts differs[\s\S]*\+ +company: string \| null;/),
    });
  }, 60_000);
});
