import type { Db } from '../../platform/db/index.js';
import { allows, type Principal } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import type { Change, ChangeGuard } from '../changes/index.js';

export interface Place {
  project: string;
  environment: string;
  /** Approvals a change request needs there. */
  approvals: number;
}

/** Whether the caller skips change requests in every project and environment (Admins, admin tokens). */
const skipsEverywhere = (by: Principal) =>
  by.grants.some(
    (g) =>
      (g.permission === 'ADMIN' || g.permission === 'SKIP_CHANGE_REQUEST') &&
      (!g.project || g.project === '*') &&
      (!g.environment || g.environment === '*'),
  );

/**
 * The project environments a change touches that require change requests: its own environment;
 * for a change of the whole flag (dependencies, archiving, the flag-level variants), every
 * environment of its project; for a segment, every environment where a strategy uses it.
 */
export async function protectedPlaces(db: Db, change: Change): Promise<Place[]> {
  if ('environment' in change) return protectedIn(db, change.project, change.environment);
  if ('project' in change) return protectedIn(db, change.project);
  return db
    .selectFrom('change_request_settings as s')
    .innerJoin('features as f', 'f.project', 's.project')
    .innerJoin('feature_strategies as fs', (j) =>
      j.onRef('fs.feature_name', '=', 'f.name').onRef('fs.environment', '=', 's.environment'),
    )
    .innerJoin('feature_strategy_segment as fss', 'fss.feature_strategy_id', 'fs.id')
    .select(['s.project', 's.environment', 's.required_approvals as approvals'])
    .distinct()
    .where('fss.segment_id', '=', change.payload.id)
    .orderBy('s.project')
    .orderBy('s.environment')
    .execute();
}

/** The project's environment (or, with none named, every environment of it) that requires change requests. */
function protectedIn(db: Db, project: string, environment?: string): Promise<Place[]> {
  let query = db
    .selectFrom('change_request_settings as s')
    .innerJoin('project_environments as pe', (j) =>
      j.onRef('pe.project_id', '=', 's.project').onRef('pe.environment_name', '=', 's.environment'),
    )
    .select(['s.project', 's.environment', 's.required_approvals as approvals'])
    .where('s.project', '=', project);
  if (environment !== undefined) query = query.where('s.environment', '=', environment);
  return query.orderBy('s.environment').execute();
}

function refuseWhereRequired(by: Principal, places: Place[]) {
  const blocked = places.find((p) => !allows(by, 'SKIP_CHANGE_REQUEST', p.project, p.environment));
  if (!blocked) return;
  throw new AppError(
    'NoAccessError',
    `Change requests are required in the "${blocked.environment}" environment of project "${blocked.project}": add this change to a change request, or ask for the "SKIP_CHANGE_REQUEST" permission there.`,
  );
}

/**
 * The same gate for a write not (yet) made of changes through the applier (an import into one
 * environment; a flag PUT that archives, which touches every environment of the project).
 */
export async function gateDirectWrite(db: Db, by: Principal, project: string, environment?: string) {
  if (skipsEverywhere(by)) return;
  refuseWhereRequired(by, await protectedIn(db, project, environment));
}

/** The change requests' gate on direct configuration writes (ChangeGuard, src/features/changes/). */
export const changeRequestGate: ChangeGuard = async (db, change, { by }) => {
  if (skipsEverywhere(by)) return;
  refuseWhereRequired(by, await protectedPlaces(db, change));
};
