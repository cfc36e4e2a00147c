export { parseSearch } from './search.query.js';
export { searchRoutes } from './search.routes.js';
export { SearchItemSchema, SearchResultSchema } from './search.schemas.js';
export { compileSearch } from './search.store.js';
