import murmurhash3js from 'murmurhash3js';

/** Seed of gradual rollouts (docs/evaluation.md §3). */
export const ROLLOUT_SEED = 0;
/** Seed of variant bucketing, flag-level and strategy variants alike (§3). */
export const VARIANT_SEED = 86028157;

/**
 * `(h % n) + 1` in 1..n with `h` = MurmurHash3 x86-32 of `${groupId}:${id}`, exactly as the Node SDK
 * computes it through `murmurhash3js` (§0.7): that library hashes the low byte of each UTF-16
 * code unit, not UTF-8 bytes, so non-ASCII keys bucket like the SDK (§15 example 11). `groupId` is
 * interpolated as-is, so an absent one yields the key `undefined:<id>` like the SDK (§15 example 12).
 */
export function normalise(id: string, groupId: string | undefined, n: number, seed: number): number {
  return (murmurhash3js.x86.hash32(`${groupId}:${id}`, seed) % n) + 1;
}

/** Rollout membership: 0 excludes everyone, 100 includes everyone, the boundary is included (§3). */
export function inRollout(id: string, groupId: string, percentage: number): boolean {
  return percentage > 0 && normalise(id, groupId, 100, ROLLOUT_SEED) <= percentage;
}
