import type { ChangeHandlers } from '../changes/index.js';
import { archiveIn } from './archive.service.js';

/** Archiving a flag as a change (the applier of src/features/changes/ runs it in its transaction). */
export const archiveChanges: Pick<ChangeHandlers, 'archiveFeature'> = {
  archiveFeature: {
    async apply(tx, change, { deps, by }) {
      await archiveIn(tx, deps, change.project, change.feature, by);
      return undefined;
    },
  },
};
