export {
  createMissingTagTypes,
  dropTagData,
  importTags,
  setTagsOfFlags,
  tagNewFlags,
} from './tags.batch.service.js';
export { tagRoutes } from './tags.routes.js';
export { TAG_TYPE_NAME_PATTERN } from './tags.schemas.js';
export { copyFlagTags, tagNewFlag } from './tags.store.js';
