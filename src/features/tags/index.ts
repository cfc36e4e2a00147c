// biome-ignore-all assist/source/organizeImports: the order is the evaluation order (see below).
// Shapes first: ESM evaluates these modules in the order they are listed, so a slice that reaches
// this index through an import cycle (tags -> flags -> tags) never meets an uninitialised schema.
export { TAG_TYPE_NAME_PATTERN, TagSchema } from './tags.schemas.js';
export { tagRoutes } from './tags.routes.js';
export { copyFlagTags } from './tags.store.js';
