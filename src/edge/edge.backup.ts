import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientDocument } from './edge.index.js';
import type { EdgeToken } from './edge.tokens.js';

/**
 * An edge replica's last configuration on disk (`EDGE_BACKUP_FOLDER`, Unleash Edge's
 * `BACKUP_FOLDER`), so that a replica restarted while its upstream is away still serves the flags
 * its SDKs last saw. It holds each environment's client-features document and the scope of each
 * token the upstream said was valid, keyed by the token's SHA-256: no secret is written (the
 * startup tokens come from the environment again; an SDK's token is recognised by its hash).
 * Written whole to a temporary file and renamed over the old one, so a crash mid-write leaves the
 * previous backup.
 */

export type TokenScope = Omit<EdgeToken, 'token'>;

/** How a token is named in the backup. */
export const tokenHash = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface Backup {
  version: 1;
  savedAt: string;
  tokens: Record<string, TokenScope>;
  documents: Record<string, ClientDocument>;
}

const FILE = 'flagship-edge-backup.json';

export class EdgeBackup {
  private readonly path: string;

  constructor(private readonly folder: string) {
    this.path = join(folder, FILE);
  }

  /** The backup, or undefined when there is none or it cannot be read (then it is ignored). */
  load(): Backup | undefined {
    try {
      const backup = JSON.parse(readFileSync(this.path, 'utf8')) as Backup;
      return backup.version === 1 && backup.documents && backup.tokens ? backup : undefined;
    } catch {
      return undefined;
    }
  }

  save(tokens: Record<string, TokenScope>, documents: Map<string, ClientDocument>, now = new Date()): void {
    mkdirSync(this.folder, { recursive: true });
    const backup: Backup = {
      version: 1,
      savedAt: now.toISOString(),
      tokens,
      documents: Object.fromEntries(documents),
    };
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(backup), { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
