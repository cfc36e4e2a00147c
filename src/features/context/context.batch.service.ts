import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents } from '../events/index.js';
import { insertContextFields } from './context.batch.store.js';
import type { ContextValues } from './context.store.js';

/**
 * Creates the context fields that do not exist yet (`context-field-created` each, with the data a
 * creation through the API records); existing ones are left as they are. Returns the number of
 * events recorded.
 */
export async function createMissingContextFields(
  tx: Db,
  fields: ContextValues[],
  by: Principal,
): Promise<number> {
  const created = await insertContextFields(tx, fields);
  return appendEvents(
    tx,
    fields
      .filter((f) => created.has(f.name))
      .map((f) => ({
        type: 'context-field-created',
        createdBy: by.name,
        createdByUserId: by.userId,
        data: {
          name: f.name,
          description: f.description,
          stickiness: f.stickiness,
          sortOrder: f.sortOrder,
          legalValues: f.legalValues,
          project: f.project,
        },
      })),
  );
}
