// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { TAG_TYPE_NAME_PATTERN, TagSchema } from './tags.schemas.js';
export { tagRoutes } from './tags.routes.js';
export { copyFlagTags, tagNewFlag } from './tags.store.js';
export {
  createMissingTagTypes,
  dropTagData,
  importTags,
  setTagsOfFlags,
  tagNewFlags,
} from './tags.batch.service.js';
