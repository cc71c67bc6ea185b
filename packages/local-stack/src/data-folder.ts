/**
 * The data folder (`--data`, `.data/` by default) is its owner's alone: it holds the outbox (with
 * password-reset and invite links), the auth signing key, the Stripe and Resend stand-ins' keys and
 * state, the stored bucket files and the database. Every writer in the stack makes its folders 0700
 * and its files 0600 through these helpers, whatever the umask: a shared machine's other users can
 * neither read a reset link nor change a row. PGlite is the exception, as it writes through its own
 * file system layer (a new database comes out of its archive 0666), so the stack tightens its
 * folder once PGlite has opened it (packages/local-stack/src/stack.ts), and a folder an earlier
 * version left looser is tightened at start (`tightenDataFolder`).
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  createWriteStream,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Folders: the owner may list and enter them, nobody else. */
export const FOLDER_MODE = 0o700;
/** Files: the owner may read and write them, nobody else. */
export const FILE_MODE = 0o600;

/**
 * What the stack keeps in a data folder (the database, the outbox, the stand-ins, stored files, the
 * signing key, the lock, `npm run dev`'s lesson bundle). Only these are tightened at start: a data
 * folder pointed at a folder with other things in it (`DATA_DIR=~`) leaves those alone.
 */
export const STACK_ENTRIES = [
  "pglite",
  "mail",
  "stripe",
  "resend",
  "storage",
  "dev-course",
  "auth-signing-key.json",
  "stack.lock",
];

/** Makes `path` and any missing parents, private (an existing folder keeps its mode: see `tightenFolder`). */
export function makePrivateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: FOLDER_MODE });
}

/** `makePrivateFolder`, for the request handlers. */
export async function makePrivateFolderAsync(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: FOLDER_MODE });
}

/**
 * Writes `data` to `path` (created or replaced) as a private file. The mode is set on the open file
 * too: `mode` alone applies only when the file is created, and a temporary file left by a killed
 * process may already be there.
 */
export function writePrivateFileSync(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, "w", FILE_MODE);
  try {
    fchmodSync(fd, FILE_MODE);
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Writes a new private file (the callers write a fresh temporary name, then rename it into place). */
export async function writePrivateFile(path: string, data: string | Uint8Array): Promise<void> {
  await writeFile(path, data, { mode: FILE_MODE });
  await chmod(path, FILE_MODE);
}

/** Appends to `path`, creating it private. */
export function appendPrivateFileSync(path: string, data: string): void {
  appendFileSync(path, data, { mode: FILE_MODE });
}

/** A stream that appends to `path`, creating it private. */
export function privateAppendStream(path: string): ReturnType<typeof createWriteStream> {
  return createWriteStream(path, { flags: "a", mode: FILE_MODE });
}

/**
 * Tightens what the stack keeps in `dataDir` (`STACK_ENTRIES`, with what is under them), and the
 * folder itself when it holds nothing else; answers how many entries it changed.
 */
export function tightenDataFolder(dataDir: string): number {
  const names = readdirSync(dataDir);
  let changed = 0;
  for (const name of names) if (STACK_ENTRIES.includes(name)) changed += tightenFolder(join(dataDir, name));
  if (names.every((name) => STACK_ENTRIES.includes(name)) && lstatSync(dataDir).mode & 0o077) {
    chmodSync(dataDir, FOLDER_MODE);
    changed++;
  }
  return changed;
}

/**
 * Takes every permission of the group and of others off `root` and what is under it (folders
 * become 0700, files 0600) and answers how many entries it changed. Symbolic links are left
 * alone: chmod would follow them out of the folder. An entry that goes away meanwhile is skipped.
 */
export function tightenFolder(root: string): number {
  let changed = 0;
  const visit = (path: string) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    if (stat.isSymbolicLink()) return;
    const folder = stat.isDirectory();
    if (stat.mode & 0o077) {
      chmodSync(path, folder ? FOLDER_MODE : FILE_MODE);
      changed++;
    }
    if (folder) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return changed;
}
