import { type ChangeHandlers, checkSnapshot } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import { loadFlag, pick, prepareVariants, response, writeEnvironments } from './variants.service.js';
import { saveVariants } from './variants.store.js';

/**
 * Where a flag's variants change, and the events that records: the variant changes' handlers (the
 * applier of src/features/changes/ runs them in its transaction). Writes to an archived flag are
 * refused (400), as strategy writes are.
 */
export const variantChanges: Pick<ChangeHandlers, 'patchVariant' | 'updateFlagVariants'> = {
  patchVariant: {
    current: async (db, change) =>
      pick(await loadFlag(db, change.project, change.feature), change.feature, change.environment).variants,
    async apply(tx, change, { by }) {
      const t = { projectId: change.project, featureName: change.feature };
      const env = pick(await loadFlag(tx, t.projectId, t.featureName), t.featureName, change.environment);
      checkSnapshot(
        change.payload.snapshot,
        env.variants,
        `The variants of "${t.featureName}" in "${change.environment}"`,
      );
      const next = prepareVariants(change.payload.variants);
      // One `feature-environment-variants-updated` per environment, as Unleash records it.
      await writeEnvironments(tx, t, [env], next, by);
      return response(next);
    },
  },

  updateFlagVariants: {
    current: async (db, change) => (await loadFlag(db, change.project, change.feature))[0]?.variants ?? [],
    // The deprecated flag-level variants: every environment gets the list, recorded once as
    // `feature-variants-updated`; the flag-level GET (and so the snapshot) shows the first one's.
    async apply(tx, change, { by }) {
      const envs = await loadFlag(tx, change.project, change.feature);
      const before = envs[0]?.variants ?? [];
      checkSnapshot(change.payload.snapshot, before, `The variants of "${change.feature}"`);
      const next = prepareVariants(change.payload.variants);
      await saveVariants(
        tx,
        change.feature,
        envs.map((e) => e.environment),
        next,
      );
      await appendEvent(tx, {
        type: 'feature-variants-updated',
        createdBy: by.name,
        createdByUserId: by.userId,
        featureName: change.feature,
        project: change.project,
        data: { variants: next },
        preData: { variants: before },
      });
      return response(next);
    },
  },
};
