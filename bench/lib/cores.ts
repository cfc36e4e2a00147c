/**
 * Keeping the service on a core of its own, and the load generators and the database's sessions
 * on the others (docs/adr/0020), so that on one machine a figure measures what the service does,
 * as when SDKs, writers and PostgreSQL are other machines, and not how the kernel shares the cores
 * among them. Linux only, through `taskset` (util-linux).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Sql } from './db.js';

export const SERVICE_CPU = 0;

// Read when the module loads: os.cpus() lists the online cores whatever this process's affinity
// (availableParallelism() would shrink to the cores this process was pinned to).
const coreCount = cpus().length;

/** The cores everything but the service runs on: "1" on 2 cores, "1-3" on 4. */
export const REST_CPUS = coreCount === 2 ? '1' : `1-${coreCount - 1}`;

/** Pins a process and all its threads (`taskset -a`); what it starts later inherits it. Throws if it cannot. */
export function pin(pid: number, cpuList: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
}

/** Moves this process to REST_CPUS; false where it cannot (one core, no taskset, not Linux). */
export function pinSelfApart(): boolean {
  if (coreCount < 2) return false;
  try {
    pin(process.pid, REST_CPUS);
    return true;
  } catch {
    return false;
  }
}

/**
 * Moves the PostgreSQL sessions of the database `sql` is connected to (the service's pool, its
 * listening session, the bench's own) to REST_CPUS; call it again to catch sessions opened since.
 * Only when the server is this machine (a socket or loopback connection) and each pid is a
 * PostgreSQL process here: a pid from another machine's server could name an unrelated process.
 */
export async function sessionPinner(sql: Sql) {
  const [server] = await sql.query<{ address: string | null }>('SELECT inet_server_addr()::text AS address');
  const local = !server?.address || /^(127\.|::1)/.test(server.address);
  const seen = new Set<number>();
  const state = { local, pinned: 0, failed: 0 };
  const check = async () => {
    if (!local) return;
    const rows = await sql.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
    );
    for (const { pid } of rows) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres')) throw new Error();
        pin(pid, REST_CPUS);
        state.pinned += 1;
      } catch {
        state.failed += 1; // gone already, not a PostgreSQL process here, or not ours to move
      }
    }
  };
  await check();
  return { state, check };
}

/** CPU time a process has used so far (user + system), in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime (fields 14 and 15 of proc(5)) are in clock ticks, 100 a second on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface CoreTicks {
  cpu: number;
  busy: number;
  total: number;
}

/**
 * Each core's time so far from /proc/stat, in clock ticks: all of it, and the part spent running
 * something (user, nice, system, irq, softirq). Idle, iowait and steal (the hypervisor ran
 * another guest) are not busy.
 */
export function coreTicks(): CoreTicks[] {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return [];
  }
  return stat.split('\n').flatMap((line) => {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match) return [];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = (match[2] as string)
      .trim()
      .split(/\s+/)
      .map(Number) as number[];
    const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
    return [{ cpu: Number(match[1]), busy, total: busy + (idle ?? 0) + (iowait ?? 0) + (steal ?? 0) }];
  });
}
