export { archiveChanges } from './archive.changes.js';
export { deleteArchivedFlagsIn } from './archive.service.js';
export { favoriteFlags } from './favorites.service.js';
export { dropAllFlags, upsertFlags } from './flags.batch.service.js';
export {
  type BatchFlag,
  lockAllProjectsAndFlags,
  lockProjectAndFlags,
} from './flags.batch.store.js';
export { flagRoutes } from './flags.routes.js';
export { FLAG_NAME_PATTERN, FLAG_TYPES, FlagSchema } from './flags.schemas.js';
export { markFlagsSeen } from './flags.store.js';
export { type BatchLink, setLinksOfFlags } from './links.batch.store.js';
export { linkUrl } from './links.service.js';
export { checkPotentialStaleness, reconcileStaleness, startStalenessJob } from './staleness.service.js';
