// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { SearchItemSchema, SearchResultSchema } from './search.schemas.js';
export { searchRoutes } from './search.routes.js';
export { parseSearch } from './search.query.js';
export { compileSearch } from './search.store.js';
