import { allows, type Grant } from '../../platform/http/auth.js';

/**
 * Who may read an event, as the event routes decide: the whole log (`GET /api/admin/events`, the
 * event search) needs ADMIN; a flag's events (`GET /api/admin/events/:featureName`) are open to
 * every signed-in user. `grants`: a signed-in principal's; undefined for someone who is not
 * (a deleted user), who may read none.
 */
export function mayReadEvent(grants: Grant[] | undefined, event: { featureName: string | null }): boolean {
  if (grants === undefined) return false;
  return event.featureName !== null || readsWholeLog(grants);
}

/** Whether these grants read every event (ADMIN, on every project). */
export const readsWholeLog = (grants: Grant[]) => allows({ grants }, 'ADMIN');
