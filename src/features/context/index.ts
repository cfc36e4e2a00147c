// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { ContextFieldSchema } from './context.schemas.js';
export { contextRoutes } from './context.routes.js';
export { createMissingContextFields } from './context.batch.service.js';
