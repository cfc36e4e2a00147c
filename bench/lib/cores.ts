import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Keeps the service on a core of its own, and the load generators and the database sessions on
 * the others, so that on one machine a figure measures what the service does (as when SDKs,
 * writers and PostgreSQL run on other machines, as in production) and not how the kernel shares
 * two cores between it and them. Linux only, through `taskset` (util-linux); `apart()` says
 * whether it can.
 */
export const SERVICE_CPU = 0;

/** The CPUs everything but the service runs on ("1-3" on a 4-core machine). */
export const restCpus = () => {
  const n = availableParallelism();
  return n === 2 ? '1' : `1-${n - 1}`;
};

export function canPin(): boolean {
  if (availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins a process and all its threads (`taskset -a`); processes it starts later inherit it. */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** CPU time a process has used so far (user + system), in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime (fields 14 and 15 of proc(5)) are in clock ticks, 100 a second on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Each core's time so far from /proc/stat, in clock ticks: all of it, and the part not idle. */
export function coreTicks(): { busy: number; total: number }[] {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return [];
  }
  return stat
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const ticks = line.split(/\s+/).slice(1, 9).map(Number);
      const total = ticks.reduce((a, b) => a + b, 0);
      // idle and iowait (the 4th and 5th); user, nice, system, irq, softirq and steal are busy.
      return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
    });
}
