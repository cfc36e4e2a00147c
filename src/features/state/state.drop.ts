import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { dropEnvironments } from '../environments/index.js';
import { dropAllFlags, lockAllProjectsAndFlags } from '../flags/index.js';
import { dropProjects } from '../projects/index.js';
import { dropSegments } from '../segments/index.js';
import { dropCustomStrategyTypes } from '../strategy-definitions/index.js';
import { dropTagData } from '../tags/index.js';
import type { StateDocumentInput } from './state.schemas.js';

/**
 * The state import's `drop` (Unleash 5.x): before the import, what is here of each kind the
 * document lists (an empty list counts) is deleted by its owning slice, each kind recording its
 * `drop-*` event, in the caller's transaction. Flags: all, archived or not, with their
 * environments, strategies and tags. Tag data: flag tags, tags, tag types, as far as the document
 * lists them. Segments, custom strategy types, projects other than `default`: those nothing left
 * uses (a project still holding flags, a type or segment still used by their strategies, stays
 * when the document has no flags). Environments: all but the protected ones and those the document
 * lists (which it then redefines). Returns the number of events recorded.
 */
export async function dropListedKinds(tx: Db, doc: StateDocumentInput, by: Principal): Promise<number> {
  await lockAllProjectsAndFlags(tx);
  let events = 0;
  if (doc.features) events += await dropAllFlags(tx, by);
  if (doc.featureTags || doc.tags || doc.tagTypes) {
    events += await dropTagData(
      tx,
      { tags: doc.tags !== undefined, tagTypes: doc.tagTypes !== undefined },
      by,
    );
  }
  if (doc.segments) events += await dropSegments(tx, by);
  if (doc.strategies) events += await dropCustomStrategyTypes(tx, by);
  if (doc.projects) events += await dropProjects(tx, by);
  if (doc.environments) {
    events += await dropEnvironments(
      tx,
      doc.environments.map((e) => e.name),
      by,
    );
  }
  return events;
}
