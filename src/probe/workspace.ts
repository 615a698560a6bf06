import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { findMarkers } from './markers.js';
import type { WorkspaceCheck } from './types.js';

const MAX_FILES = 2000;
const MAX_BYTES = 1024 * 1024;

async function readHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

/**
 * Look through a session's workspace directory: it must exist, hold one of the session's own markers of this run,
 * and hold no other probe marker (another session's, or an earlier run's) in any file or file name (first MB of up to
 * 2000 regular files; symlinks are not followed).
 */
export async function checkWorkspace(session: string, dir: string, round: number, runId: string): Promise<WorkspaceCheck> {
  const check: WorkspaceCheck = { session, round, dir, exists: false, files: 0, ownMarker: false, foreignMarkers: [] };
  try {
    if (!(await lstat(dir)).isDirectory()) return check;
  } catch {
    return check;
  }
  check.exists = true;
  const stack = [dir];
  while (stack.length > 0 && check.files < MAX_FILES) {
    const current = stack.pop() as string;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile() && check.files < MAX_FILES) {
        check.files++;
        let text: string;
        try {
          text = await readHead(full);
        } catch {
          continue;
        }
        for (const m of findMarkers(`${entry.name}\n${text}`)) {
          if (!m.legacy && m.run === runId && m.session === session) check.ownMarker = true;
          else check.foreignMarkers.push({ marker: m.text, file: path.relative(dir, full) });
        }
      }
    }
  }
  return check;
}
