import { clientFlag } from '../client-api/index.js';
import type { Configuration, EnvironmentSnapshot } from '../snapshot/index.js';

/** A token's view: its projects (`*` = all) in one environment. */
export interface DeltaScope {
  projects: string[];
  environment: string;
}

interface FlagState {
  project: string;
  value: unknown;
  text: string;
  segments: number[];
}
interface SegmentState {
  value: { id: number; name: string; constraints: unknown[] };
  text: string;
}
type Change =
  | { kind: 'flag'; name: string; before?: FlagState; after?: FlagState }
  | { kind: 'segment'; id: number; after?: SegmentState };

/** The wire events of the delta API (Unleash client specification 5.2.0). */
export type DeltaEvent =
  | { type: 'hydration'; eventId: number; features: unknown[]; segments: unknown[] }
  | { type: 'feature-updated'; eventId: number; feature: unknown }
  | { type: 'feature-removed'; eventId: number; featureName: string; project: string }
  | { type: 'segment-updated'; eventId: number; segment: unknown }
  | { type: 'segment-removed'; eventId: number; segmentId: number };

function flagsOf(snapshot: EnvironmentSnapshot): Map<string, FlagState> {
  const flags = new Map<string, FlagState>();
  for (const input of snapshot.input.features) {
    const done = clientFlag(input);
    flags.set(input.name, { project: input.project ?? 'default', ...done });
  }
  return flags;
}

function segmentsOf(snapshot: EnvironmentSnapshot): Map<number, SegmentState> {
  const segments = new Map<number, SegmentState>();
  for (const s of snapshot.input.segments ?? []) {
    const value = { id: s.id, name: s.name ?? '', constraints: s.constraints ?? [] };
    segments.set(s.id, { value, text: JSON.stringify(value) });
  }
  return segments;
}

/**
 * One environment's client state and the changes of its recent revisions. Each time the
 * configuration moves, the new state is diffed with the previous one (flags by their serialised
 * client form, segments by theirs); revisions that changed something are kept, the last
 * `capacity` of them. A cursor at or after the oldest kept revision's predecessor can be answered
 * with the changes after it; an older one gets a hydration.
 *
 * Changes are whole objects (replace by name or id), so answering a cursor that falls between two
 * observed revisions with the later one's changes repeats some the client already has, harmlessly.
 */
export class EnvironmentDelta {
  revision: number;
  /** The oldest cursor the kept changes can answer. */
  private since: number;
  private snapshot: EnvironmentSnapshot;
  private flags: Map<string, FlagState>;
  private segments: Map<number, SegmentState>;
  private readonly entries: { revision: number; changes: Change[] }[] = [];

  constructor(
    config: Configuration,
    readonly environment: string,
    private readonly capacity: number,
  ) {
    this.revision = config.revision;
    this.since = config.revision;
    this.snapshot = config.environment(environment);
    this.flags = flagsOf(this.snapshot);
    this.segments = segmentsOf(this.snapshot);
  }

  /** Moves to a newer configuration; true when something in this environment changed. */
  advance(config: Configuration): boolean {
    if (config.revision < this.revision) return false;
    this.revision = config.revision;
    const snapshot = config.environment(this.environment);
    if (snapshot === this.snapshot) return false;
    this.snapshot = snapshot;
    const flags = flagsOf(snapshot);
    const segments = segmentsOf(snapshot);
    const changes: Change[] = [];
    for (const [id, after] of segments) {
      if (this.segments.get(id)?.text !== after.text) changes.push({ kind: 'segment', id, after });
    }
    for (const [name, after] of flags) {
      const before = this.flags.get(name);
      if (before?.text !== after.text) changes.push({ kind: 'flag', name, ...(before && { before }), after });
    }
    for (const [name, before] of this.flags) {
      if (!flags.has(name)) changes.push({ kind: 'flag', name, before });
    }
    for (const id of this.segments.keys()) {
      if (!segments.has(id)) changes.push({ kind: 'segment', id });
    }
    this.flags = flags;
    this.segments = segments;
    if (changes.length === 0) return false;
    this.entries.push({ revision: config.revision, changes });
    while (this.entries.length > this.capacity) this.since = this.entries.shift()?.revision ?? this.since;
    return true;
  }

  /** The whole state the scope sees, sorted by flag name (stable for replicas hashing it). */
  hydration(scope: DeltaScope): DeltaEvent {
    const visible = visibility(scope);
    const features: unknown[] = [];
    const used = new Set<number>();
    for (const flag of this.flags.values()) {
      if (!visible(flag.project)) continue;
      features.push(flag.value);
      for (const id of flag.segments) used.add(id);
    }
    const segments = [...this.segments.values()].filter((s) => used.has(s.value.id)).map((s) => s.value);
    return { type: 'hydration', eventId: this.revision, features, segments };
  }

  /**
   * The scope's events after `cursor`, oldest first; undefined when the kept changes cannot
   * answer it (the caller sends a hydration). A cursor ahead of this instance gets none.
   */
  eventsAfter(cursor: number, scope: DeltaScope): DeltaEvent[] | undefined {
    if (cursor < this.since) return undefined;
    const visible = visibility(scope);
    let used: Set<number> | undefined;
    const usedNow = () => {
      used ??= new Set([...this.flags.values()].filter((f) => visible(f.project)).flatMap((f) => f.segments));
      return used;
    };
    const events: DeltaEvent[] = [];
    for (const { revision: eventId, changes } of this.entries) {
      if (eventId <= cursor) continue;
      const sent = new Set<number>();
      for (const change of changes) {
        if (change.kind === 'segment') {
          if (!change.after) events.push({ type: 'segment-removed', eventId, segmentId: change.id });
          else if (usedNow().has(change.id)) {
            events.push({ type: 'segment-updated', eventId, segment: change.after.value });
            sent.add(change.id);
          }
          continue;
        }
        const { before, after, name } = change;
        const wasVisible = before !== undefined && visible(before.project);
        if (after && visible(after.project)) {
          // A flag never points at a segment the client may not have: segments it did not use
          // before (or that this scope could not see) come first.
          const had = new Set(wasVisible ? before.segments : []);
          for (const id of after.segments) {
            const segment = this.segments.get(id);
            if (had.has(id) || sent.has(id) || !segment) continue;
            events.push({ type: 'segment-updated', eventId, segment: segment.value });
            sent.add(id);
          }
          events.push({ type: 'feature-updated', eventId, feature: after.value });
        } else if (wasVisible) {
          events.push({ type: 'feature-removed', eventId, featureName: name, project: before.project });
        }
      }
    }
    return events;
  }
}

function visibility(scope: DeltaScope): (project: string) => boolean {
  if (scope.projects.includes('*')) return () => true;
  const wanted = new Set(scope.projects);
  return (project) => wanted.has(project);
}
